import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLIENT_CA_BUNDLE_KEY, rotateCertificates, STATE_KEY, type RotationPorts, type SchedulerTls } from '../../../../lambdas/certificates/rotate-certificates';
import { DEFAULT_ROTATION_POLICY } from '../../../../lambdas/certificates/rotation';
import { splitPemBundle } from '../../../../lambdas/certificates/x509';
import { handshake } from './tls-handshake';

const DAY = 86_400_000;

/** S3, ACM, the trust store, the Secret and the scheduler as plain objects that log each step. */
function world() {
  const steps: string[] = [];
  const objects = new Map<string, string>();
  const acm = new Map<string, { certificatePem: string; privateKeyPem: string }>();
  let secret: SchedulerTls | undefined;
  let trustStoreVersion = '';
  let versions = 0;
  const ports: RotationPorts = {
    bundles: {
      get: (key) => Promise.resolve(objects.get(key)),
      put: (key, text) => {
        steps.push(`put ${key}`);
        objects.set(key, text);
        return Promise.resolve(`v${++versions}`);
      },
    },
    certificates: {
      importCertificate: (certificatePem, privateKeyPem, _chain, arn) => {
        const imported = arn ?? `arn:aws:acm:us-east-1:123456789012:certificate/${acm.size + 1}`;
        steps.push(arn === undefined ? 'import new' : 'reimport');
        acm.set(imported, { certificatePem, privateKeyPem });
        return Promise.resolve(imported);
      },
      deleteCertificate: () => Promise.resolve(),
    },
    updateTrustStore: (version) => {
      steps.push(`trust store ${version}`);
      trustStoreVersion = version;
      return Promise.resolve();
    },
    readSchedulerTls: () => Promise.resolve(secret),
    writeSchedulerTls: (tls) => {
      steps.push('write secret');
      secret = tls;
      return Promise.resolve();
    },
    restartScheduler: () => {
      steps.push('restart scheduler');
      return Promise.resolve();
    },
  };
  return { ports, steps, objects, acm, secret: () => secret, trustStoreVersion: () => trustStoreVersion };
}

const names = { dnsNames: ['localhost'] };

describe('rotateCertificates', () => {
  it('first run: trust store, then the scheduler, then the server certificate; no CA key anywhere', async () => {
    const w = world();
    const now = new Date();
    const outcome = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    expect(w.steps).toEqual([`put ${CLIENT_CA_BUNDLE_KEY}`, 'trust store v1', 'write secret', 'restart scheduler', 'import new', `put ${STATE_KEY}`]);
    expect(outcome.rotated).toBe(true);
    const stored = [...w.objects.values()].join('');
    expect(stored).not.toMatch(/PRIVATE KEY/);
    const server = w.acm.get(outcome.certificateArn);
    const secret = w.secret();
    if (!server || !secret) throw new Error('nothing was written');
    const bundles = { clientCaBundle: w.objects.get(CLIENT_CA_BUNDLE_KEY) ?? '', serverCaBundle: secret.caBundlePem };
    expect(await handshake({ server, client: { certificatePem: secret.certificatePem, privateKeyPem: secret.privateKeyPem }, ...bundles })).toBe('ok');
  });

  it('a run before the renewal window changes nothing', async () => {
    const w = world();
    const now = new Date();
    const first = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    w.steps.length = 0;
    const again = await rotateCertificates(w.ports, { now: new Date(now.getTime() + 10 * DAY), policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    expect(again).toEqual({ ...first, rotated: false });
    expect(w.steps).toEqual([]);
  });

  it('a rotation keeps the ARN, and the old client certificate is accepted beside the new one until it expires', async () => {
    const w = world();
    const now = new Date();
    const first = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    const oldClient = w.secret();
    if (!oldClient) throw new Error('nothing was written');
    w.steps.length = 0;
    // Forced now (the certificates must be valid for the real handshakes below); a due run takes the same path.
    const second = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: true });
    expect(w.steps).toEqual([`put ${CLIENT_CA_BUNDLE_KEY}`, 'trust store v3', 'write secret', 'restart scheduler', 'reimport', `put ${STATE_KEY}`]);
    expect(second.certificateArn).toBe(first.certificateArn);
    const newClient = w.secret();
    const server = w.acm.get(second.certificateArn);
    if (!newClient || !server) throw new Error('nothing was written');
    const clientCaBundle = w.objects.get(CLIENT_CA_BUNDLE_KEY) ?? '';
    expect(splitPemBundle(clientCaBundle)).toHaveLength(2);
    expect(splitPemBundle(newClient.caBundlePem)).toHaveLength(2);
    expect(new X509Certificate(newClient.certificatePem).serialNumber).not.toBe(new X509Certificate(oldClient.certificatePem).serialNumber);
    const bundles = { clientCaBundle, serverCaBundle: newClient.caBundlePem };
    const asClient = (tls: SchedulerTls) => ({ certificatePem: tls.certificatePem, privateKeyPem: tls.privateKeyPem });
    expect(await handshake({ server, client: asClient(newClient), ...bundles })).toBe('ok');
    expect(await handshake({ server, client: asClient(oldClient), ...bundles })).toBe('ok');
  });

  it('revokePrevious leaves only the new generation in both bundles: the old client certificate is refused', async () => {
    const w = world();
    const now = new Date();
    await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    const oldClient = w.secret();
    if (!oldClient) throw new Error('nothing was written');
    const outcome = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: true, revokePrevious: true });
    const newClient = w.secret();
    const server = w.acm.get(outcome.certificateArn);
    if (!newClient || !server) throw new Error('nothing was written');
    const bundles = { clientCaBundle: w.objects.get(CLIENT_CA_BUNDLE_KEY) ?? '', serverCaBundle: newClient.caBundlePem };
    expect(splitPemBundle(bundles.clientCaBundle)).toHaveLength(1);
    expect(splitPemBundle(bundles.serverCaBundle)).toHaveLength(1);
    expect(await handshake({ server, client: { certificatePem: newClient.certificatePem, privateKeyPem: newClient.privateKeyPem }, ...bundles })).toBe('ok');
    expect(await handshake({ server, client: { certificatePem: oldClient.certificatePem, privateKeyPem: oldClient.privateKeyPem }, ...bundles })).not.toBe('ok');
  });

  it('serverOnly (a new ALB name at deploy time) replaces the server side only: same client certificate, same trust store', async () => {
    const w = world();
    const now = new Date();
    await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: names, force: false });
    const before = w.secret();
    const bundleBefore = w.objects.get(CLIENT_CA_BUNDLE_KEY);
    if (!before) throw new Error('nothing was written');
    w.steps.length = 0;
    const outcome = await rotateCertificates(w.ports, { now, policy: DEFAULT_ROTATION_POLICY, serverNames: { dnsNames: ['renamed.example'] }, force: true, serverOnly: true });
    expect(w.steps).toEqual(['write secret', 'restart scheduler', 'reimport']);
    const after = w.secret();
    const server = w.acm.get(outcome.certificateArn);
    if (!after || !server) throw new Error('nothing was written');
    expect(after.certificatePem).toBe(before.certificatePem);
    expect(w.objects.get(CLIENT_CA_BUNDLE_KEY)).toBe(bundleBefore);
    expect(new X509Certificate(server.certificatePem).subjectAltName).toBe('DNS:renamed.example');
    const bundles = { clientCaBundle: bundleBefore ?? '', serverCaBundle: after.caBundlePem };
    expect(await handshake({ server, client: { certificatePem: after.certificatePem, privateKeyPem: after.privateKeyPem }, ...bundles, servername: 'renamed.example' })).toBe('ok');
  });
});
