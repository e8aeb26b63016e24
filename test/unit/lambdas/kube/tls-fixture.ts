import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
