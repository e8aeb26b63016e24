import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../../../../lambdas/common/error-message';

export interface SelfSignedCert {
  readonly certPem: string;
  readonly keyPem: string;
}

/**
 * A throwaway self-signed serving certificate for 127.0.0.1 (it is its own
 * CA), made with the openssl CLI so no private key is committed. A missing
 * openssl fails the test with this message rather than skipping it.
 */
export function selfSignedCert(commonName = 'kube-http-client-test'): SelfSignedCert {
  const dir = mkdtempSync(join(tmpdir(), 'kube-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ],
      { stdio: 'pipe' },
    );
    return { certPem: readFileSync(join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (error) {
    throw new Error(`these tests need the openssl CLI to make a throwaway TLS certificate: ${errorMessage(error)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An HTTPS server on 127.0.0.1 with that certificate, standing in for the API server. */
export interface TlsServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startTlsServer(cert: SelfSignedCert, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<TlsServer> {
  const server = createServer({ cert: cert.certPem, key: cert.keyPem }, handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      // Watches left open by a test would keep close() waiting.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
