// One run of the certificate rotation, in the order that keeps the scheduler
// able to call the extender at every step:
// 1. the trust store gets the new client CA (beside the old one) before any
//    client presents a certificate it signed;
// 2. the scheduler's Secret gets the new client certificate and a caFile with
//    the new server CA (beside the old one), and the scheduler is restarted
//    and waited for, so it trusts the new server certificate before the ALB
//    presents it;
// 3. only then ACM's server certificate is replaced (re-imported in place, so
//    the listener keeps its ARN).
// No CA key is kept (rotation.ts); the only private keys that leave this
// process go to ACM (the server's) and to the Kubernetes Secret (the client's).
import type { BundleStore, ServerCertificateStore } from './aws-stores';
import { newGeneration, rotatedBundles, rotationDue, type RotationPolicy, type ServerNames } from './rotation';

export const CLIENT_CA_BUNDLE_KEY = 'extender-mtls/client-ca-bundle.pem';
/** Not secret: where the server certificate is and when this generation ends. */
export const STATE_KEY = 'extender-mtls/state.json';

/** What the scheduler's Secret holds: `tls.crt`, `tls.key`, `ca.crt`. */
export interface SchedulerTls {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly caBundlePem: string;
}

export interface RotationPorts {
  readonly bundles: BundleStore;
  readonly certificates: ServerCertificateStore;
  /** Points the trust store at a new bundle version; absent while the trust store does not exist yet (first deploy). */
  readonly updateTrustStore?: (bundleVersion: string) => Promise<void>;
  readonly readSchedulerTls: () => Promise<SchedulerTls | undefined>;
  readonly writeSchedulerTls: (tls: SchedulerTls) => Promise<void>;
  /** Restarts the scheduler's pods and waits until the new ones are available; nothing to do when it does not exist yet. */
  readonly restartScheduler: () => Promise<void>;
}

export interface RotationState {
  readonly certificateArn: string;
  readonly notAfter: string;
}

export interface RotationOutcome {
  readonly rotated: boolean;
  readonly certificateArn: string;
  readonly notAfter: string;
}

export async function readState(bundles: BundleStore): Promise<RotationState | undefined> {
  const text = await bundles.get(STATE_KEY);
  if (text === undefined) return undefined;
  const parsed = JSON.parse(text) as Partial<RotationState>;
  return typeof parsed.certificateArn === 'string' && typeof parsed.notAfter === 'string' ? { certificateArn: parsed.certificateArn, notAfter: parsed.notAfter } : undefined;
}

/** Rotates when due (or `force`), else reports the generation in place. */
export async function rotateCertificates(
  ports: RotationPorts,
  options: {
    now: Date;
    policy: RotationPolicy;
    serverNames: ServerNames;
    force: boolean;
    revokePrevious?: boolean;
    /**
     * Replace only the server side (a new ALB name): the client certificate and
     * the trust store stay as they are, which is what a deploy-time run can do,
     * since the trust store is created after it and cannot be named to it.
     */
    serverOnly?: boolean;
  },
): Promise<RotationOutcome> {
  const state = await readState(ports.bundles);
  const current = await ports.readSchedulerTls();
  if (options.serverOnly === true && current !== undefined && state !== undefined) {
    const generation = newGeneration(options.now, options.policy, options.serverNames);
    const serverCaBundle = rotatedBundles(generation, { clientCaBundle: '', serverCaBundle: current.caBundlePem }, options.now).serverCaBundle;
    await ports.writeSchedulerTls({ ...current, caBundlePem: serverCaBundle });
    await ports.restartScheduler();
    const certificateArn = await ports.certificates.importCertificate(generation.server.certificatePem, generation.server.privateKeyPem, generation.serverCaPem, state.certificateArn);
    // The generation's end is still the client certificate's: that is what the next due check reads.
    return { rotated: true, certificateArn, notAfter: state.notAfter };
  }
  if (!options.force && state !== undefined && !rotationDue(current?.certificatePem, options.now, options.policy)) {
    return { rotated: false, ...state };
  }
  const generation = newGeneration(options.now, options.policy, options.serverNames);
  const previousClientCas = await ports.bundles.get(CLIENT_CA_BUNDLE_KEY);
  const bundles = rotatedBundles(
    generation,
    options.revokePrevious === true || (previousClientCas === undefined && current === undefined) ? undefined : { clientCaBundle: previousClientCas ?? '', serverCaBundle: current?.caBundlePem ?? '' },
    options.now,
  );

  const version = await ports.bundles.put(CLIENT_CA_BUNDLE_KEY, bundles.clientCaBundle);
  await ports.updateTrustStore?.(version);

  await ports.writeSchedulerTls({ certificatePem: generation.client.certificatePem, privateKeyPem: generation.client.privateKeyPem, caBundlePem: bundles.serverCaBundle });
  await ports.restartScheduler();

  const certificateArn = await ports.certificates.importCertificate(generation.server.certificatePem, generation.server.privateKeyPem, generation.serverCaPem, state?.certificateArn);
  const next: RotationState = { certificateArn, notAfter: generation.notAfter.toISOString() };
  await ports.bundles.put(STATE_KEY, JSON.stringify(next));
  return { rotated: true, ...next };
}
