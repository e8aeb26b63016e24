// Mutual-TLS material for the local ALB adapter and the gpu-scheduler
// kube-scheduler, made in-process by the same code the deployed certificate
// rotation uses (lambdas/certificates): one generation, its server
// certificate naming 127.0.0.1, the scheduler's files written for its tlsConfig.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExtenderTlsFiles } from '../../cdk/lib/scheduler/extender-configuration';
import { DEFAULT_ROTATION_POLICY, newGeneration, rotatedBundles, type CertificateGeneration } from '../../lambdas/certificates/rotation';
import type { AlbMutualTls } from './alb-adapter';

export interface LocalMutualTls {
  /** For startAlbAdapter's `tls`. */
  readonly adapter: AlbMutualTls;
  /** For the scheduler's extender `tlsConfig`. */
  readonly scheduler: ExtenderTlsFiles;
  readonly generation: CertificateGeneration;
}

/** Issues a generation and writes the scheduler's certificate, key (mode 0600) and CA bundle under `dir`. */
export async function createLocalMutualTls(dir: string, now = new Date()): Promise<LocalMutualTls> {
  const generation = newGeneration(now, DEFAULT_ROTATION_POLICY, { ipAddresses: ['127.0.0.1'], dnsNames: ['localhost'] });
  const bundles = rotatedBundles(generation, undefined, now);
  await mkdir(dir, { recursive: true });
  const scheduler: ExtenderTlsFiles = { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caFile: join(dir, 'ca.crt') };
  await writeFile(scheduler.certFile, generation.client.certificatePem);
  await writeFile(scheduler.keyFile, generation.client.privateKeyPem, { mode: 0o600 });
  await writeFile(scheduler.caFile, bundles.serverCaBundle);
  return {
    adapter: { certificatePem: generation.server.certificatePem, privateKeyPem: generation.server.privateKeyPem, clientCaBundle: bundles.clientCaBundle },
    scheduler,
    generation,
  };
}
