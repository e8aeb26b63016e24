import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLIENT_CA_BUNDLE_KEY, rotateCertificates, serveNewEndpoint, deleteCertificates, STATE_KEY, type SchedulerTls } from '../../../../lambdas/certificates/rotate-certificates';
import { DEFAULT_ROTATION_POLICY } from '../../../../lambdas/certificates/rotation';
import { readRecord } from '../../../../lambdas/certificates/rotation-record';
import { splitPemBundle } from '../../../../lambdas/certificates/x509';
import { createWorld, type World, type WorldCall } from './rotation-world';
import { handshake } from './tls-handshake';

const DAY = 86_400_000;
const names = { dnsNames: ['localhost'] };
const policy = DEFAULT_ROTATION_POLICY;

const run = (w: World, now: Date, extra: { force?: boolean; revokePrevious?: boolean } = {}) => rotateCertificates(w.ports, { now, policy, serverNames: names, ...extra });

/** The first generation, as the stack's Create issues it before the trust store exists. */
async function firstGeneration(now: Date): Promise<World> {
  const w = createWorld({ trustStore: 'not-created' });
  await rotateCertificates(w.ports, { now, policy, serverNames: names, force: true, revokePrevious: true });
  // From then on the scheduled run reaches the trust store the stack created.
  w.setTrustStore('exists');
  return w;
}

const asClient = (tls: SchedulerTls) => ({ certificatePem: tls.certificatePem, privateKeyPem: tls.privateKeyPem });

describe('rotateCertificates', () => {
  it('first run: bundle, then the scheduler, then the server certificate; the record after each; no CA key anywhere', async () => {
    const w = createWorld({ trustStore: 'not-created' });
    const now = new Date();
    const outcome = await rotateCertificates(w.ports, { now, policy, serverNames: names, force: true, revokePrevious: true });
    expect(w.steps).toEqual(['put bundle', 'write secret', 'restart scheduler', 'import new']);
    expect(outcome).toMatchObject({ rotated: true, deferred: false });
    const record = await readRecord(w.ports.bundles);
    expect(record).toMatchObject({ certificateArn: outcome.certificateArn, serverDnsName: 'localhost', trustStoreVersion: 'v1' });
    expect(record.inProgress).toBeUndefined();
    const stored = [...w.objects.values()].join('');
    expect(stored).not.toMatch(/PRIVATE KEY/);
    const server = w.acm.get(outcome.certificateArn);
    const secret = w.secret();
    if (!server || !secret) throw new Error('nothing was written');
    const bundles = { clientCaBundle: w.objects.get(CLIENT_CA_BUNDLE_KEY) ?? '', serverCaBundle: secret.caBundlePem };
    expect(await handshake({ server, client: asClient(secret), ...bundles })).toBe('ok');
  });

  it('a run before the renewal window changes nothing', async () => {
    const now = new Date();
    const w = await firstGeneration(now);
    w.steps.length = 0;
    const again = await run(w, new Date(now.getTime() + 10 * DAY));
    expect(again).toMatchObject({ rotated: false, reasons: [] });
    expect(w.steps).toEqual([]);
  });

  it('a due rotation keeps the ARN, waits for the trust store, and the old client certificate is accepted beside the new one until it expires', async () => {
    const now = new Date();
    const w = await firstGeneration(now);
    const oldClient = w.secret();
    if (!oldClient) throw new Error('nothing was written');
    const first = await readRecord(w.ports.bundles);
    w.steps.length = 0;
    // Forced now (the certificates must be valid for the real handshakes below); a due run takes the same path.
    const second = await run(w, now, { force: true });
    expect(w.steps).toEqual(['put bundle', 'trust store v2', 'write secret', 'restart scheduler', 'reimport']);
    expect(second.certificateArn).toBe(first.certificateArn);
    const newClient = w.secret();
    const server = w.acm.get(second.certificateArn);
    if (!newClient || !server) throw new Error('nothing was written');
    const clientCaBundle = w.trustStoreBundle();
    expect(splitPemBundle(clientCaBundle)).toHaveLength(2);
    expect(splitPemBundle(newClient.caBundlePem)).toHaveLength(2);
    expect(new X509Certificate(newClient.certificatePem).serialNumber).not.toBe(new X509Certificate(oldClient.certificatePem).serialNumber);
    const bundles = { clientCaBundle, serverCaBundle: newClient.caBundlePem };
    expect(await handshake({ server, client: asClient(newClient), ...bundles })).toBe('ok');
    expect(await handshake({ server, client: asClient(oldClient), ...bundles })).toBe('ok');
  });

  it('is due when the server certificate alone is inside the window: a failed import under a record without progress (as the earlier code left it) is still caught', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    const due = new Date(start.getTime() + 61 * DAY);
    w.failNext('import');
    await expect(run(w, due)).rejects.toThrow(/injected failure: import/);
    // The Secret holds a fresh client certificate; nothing says a rotation was under way.
    const { inProgress: _dropped, ...withoutProgress } = await readRecord(w.ports.bundles);
    await w.ports.bundles.put(STATE_KEY, JSON.stringify(withoutProgress));
    w.steps.length = 0;
    const later = new Date(start.getTime() + 62 * DAY);
    const outcome = await run(w, later);
    expect(outcome.reasons).toEqual([expect.stringMatching(/^the server certificate ends \d{4}-\d{2}-\d{2}$/)]);
    expect(w.steps).toEqual(['write secret', 'restart scheduler', 'reimport']);
    expect(w.pathWorks(later)).toBe(true);
  });

  it('revokePrevious leaves only the new generation in both bundles: the old client certificate is refused', async () => {
    const now = new Date();
    const w = await firstGeneration(now);
    const oldClient = w.secret();
    if (!oldClient) throw new Error('nothing was written');
    const outcome = await run(w, now, { force: true, revokePrevious: true });
    const newClient = w.secret();
    const server = w.acm.get(outcome.certificateArn);
    if (!newClient || !server) throw new Error('nothing was written');
    const bundles = { clientCaBundle: w.trustStoreBundle(), serverCaBundle: newClient.caBundlePem };
    expect(splitPemBundle(bundles.clientCaBundle)).toHaveLength(1);
    expect(splitPemBundle(bundles.serverCaBundle)).toHaveLength(1);
    expect(await handshake({ server, client: asClient(newClient), ...bundles })).toBe('ok');
    expect(await handshake({ server, client: asClient(oldClient), ...bundles })).not.toBe('ok');
  });

  describe('a run that fails at a step is resumed by the next one, which finishes it', () => {
    const cases: { call: WorldCall; step: string; thenSteps: string[] }[] = [
      // The bundle never changed: the next run starts over.
      { call: 'put bundle', step: 'client-ca-bundle', thenSteps: ['put bundle', 'trust store v2', 'write secret', 'restart scheduler', 'reimport'] },
      // The bundle holds a CA whose certificate's key is gone: a new one replaces it.
      { call: 'trust store', step: 'trust-store', thenSteps: ['put bundle', 'trust store v3', 'write secret', 'restart scheduler', 'reimport'] },
      { call: 'write secret', step: 'scheduler-secret', thenSteps: ['put bundle', 'trust store v3', 'write secret', 'restart scheduler', 'reimport'] },
      // The Secret holds the new client certificate: only the scheduler's restart and the server side are left.
      { call: 'restart scheduler', step: 'scheduler-restart', thenSteps: ['write secret', 'restart scheduler', 'reimport'] },
      { call: 'import', step: 'server-certificate', thenSteps: ['write secret', 'restart scheduler', 'reimport'] },
    ];
    for (const { call, step, thenSteps } of cases) {
      it(`${call} fails: the record names ${step}; the next run completes, the path works throughout and no stray CA stays`, async () => {
        const start = new Date();
        const w = await firstGeneration(start);
        const due = new Date(start.getTime() + 61 * DAY);
        w.failNext(call);
        await expect(run(w, due)).rejects.toThrow(`injected failure: ${call}`);
        expect((await readRecord(w.ports.bundles)).inProgress?.step).toBe(step);
        expect(w.pathWorks(due)).toBe(true);
        w.steps.length = 0;
        const next = await run(w, new Date(due.getTime() + DAY));
        expect(next.rotated).toBe(true);
        expect(w.steps).toEqual(thenSteps);
        expect((await readRecord(w.ports.bundles)).inProgress).toBeUndefined();
        // Every CA of the bundles is one a certificate in use was signed by (the current and the previous generation).
        expect(splitPemBundle(w.trustStoreBundle())).toHaveLength(2);
        expect(splitPemBundle(w.secret()?.caBundlePem ?? '')).toHaveLength(2);
        expect(w.pathWorks(new Date(due.getTime() + DAY))).toBe(true);
        // And the next run finds nothing to do.
        w.steps.length = 0;
        expect((await run(w, new Date(due.getTime() + 2 * DAY))).rotated).toBe(false);
        expect(w.steps).toEqual([]);
      });
    }

    it('the state write fails before the first step: nothing changed, the next run does it all', async () => {
      const start = new Date();
      const w = await firstGeneration(start);
      w.steps.length = 0;
      w.failNext('put state');
      await expect(run(w, new Date(start.getTime() + 61 * DAY))).rejects.toThrow('injected failure: put state');
      expect(w.steps).toEqual(expect.not.arrayContaining(['put bundle']));
      expect((await run(w, new Date(start.getTime() + 62 * DAY))).rotated).toBe(true);
    });
  });

  it('a run that cannot reach the trust store (deploy time) replaces the server side and leaves the client side for the scheduled run', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    w.setTrustStore('unreachable');
    const due = new Date(start.getTime() + 61 * DAY);
    const outcome = await rotateCertificates(w.ports, { now: due, policy, serverNames: names });
    w.setTrustStore('exists');
    expect(outcome).toMatchObject({ rotated: false, deferred: true });
    expect((await readRecord(w.ports.bundles)).inProgress).toMatchObject({ client: true, step: 'client-ca-bundle' });
    w.steps.length = 0;
    expect((await run(w, due)).rotated).toBe(true);
    expect(w.steps).toEqual(['put bundle', 'trust store v2', 'write secret', 'restart scheduler']);
    expect(w.pathWorks(due)).toBe(true);
  });

  it('on a fake clock, failures at every step on many days never let a certificate of the path expire', async () => {
    const start = new Date('2027-01-01T03:00:00Z');
    const w = await firstGeneration(start);
    const steps: WorldCall[] = ['put bundle', 'trust store', 'write secret', 'restart scheduler', 'import', 'put state'];
    let failedRuns = 0;
    let rotations = 0;
    for (let day = 1; day <= 400; day++) {
      const at = new Date(start.getTime() + day * DAY);
      // From day 55 on, a failure at some step on most days of the month; the schedule's two retries fail too on days divisible by 3.
      const failing = day >= 55 && day % 30 < 20 && day % 4 !== 0;
      const attempts = failing && day % 3 === 0 ? 3 : 1;
      for (let attempt = 0; attempt < attempts + 1; attempt++) {
        if (failing && attempt < attempts) w.failNext(steps[(day + attempt) % steps.length] as WorldCall);
        try {
          if ((await run(w, new Date(at.getTime() + attempt * 60_000))).rotated) rotations++;
          break;
        } catch {
          failedRuns++;
        }
      }
      // After the day's runs (each a minute apart), and just before the next day's: nothing expires between runs either.
      expect(w.pathWorks(new Date(at.getTime() + 10 * 60_000)), `day ${day}`).toBe(true);
      expect(w.pathWorks(new Date(at.getTime() + DAY - 1000)), `day ${day}, just before the next run`).toBe(true);
    }
    expect(failedRuns).toBeGreaterThan(30);
    expect(rotations).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('reports the reasons: a trust store that lost the client CA (its version pointer is old) is due', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    // The bundle moved on (a version nobody pointed the trust store at), the Secret holds a certificate of it.
    await rotateCertificates({ ...w.ports, trustStore: 'not-created' }, { now: start, policy, serverNames: names, force: true });
    const record = await readRecord(w.ports.bundles);
    await w.ports.bundles.put(STATE_KEY, JSON.stringify({ ...record, trustStoreVersion: 'v1' }));
    const outcome = await run(w, start);
    expect(outcome.reasons).toContain("the trust store does not hold the client certificate's CA");
  });
});

describe('serveNewEndpoint (a deployment replaced the ALB)', () => {
  it('imports a new certificate under a new ARN for the new name, adds its CA to ca.crt, restarts nothing, retires the old one', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    const before = await readRecord(w.ports.bundles);
    const beforeSecret = w.secret();
    w.steps.length = 0;
    const outcome = await serveNewEndpoint(w.ports, { now: start, policy, serverNames: { dnsNames: ['renamed.example'] }, serverDnsName: 'renamed.example' });
    expect(w.steps).toEqual(['write secret', 'import new']);
    expect(outcome.certificateArn).not.toBe(before.certificateArn);
    const record = await readRecord(w.ports.bundles);
    expect(record).toMatchObject({ certificateArn: outcome.certificateArn, serverDnsName: 'renamed.example', retired: [{ arn: before.certificateArn, dnsName: 'localhost' }] });
    const secret = w.secret();
    const server = w.acm.get(outcome.certificateArn);
    const old = w.acm.get(before.certificateArn ?? '');
    if (!secret || !server || !old || !beforeSecret) throw new Error('nothing was written');
    expect(secret.certificatePem).toBe(beforeSecret.certificatePem);
    const clientCaBundle = w.trustStoreBundle();
    // The new pods trust both ALBs: the old one until it is gone, the new one they are configured for.
    expect(await handshake({ server, client: asClient(secret), clientCaBundle, serverCaBundle: secret.caBundlePem, servername: 'renamed.example' })).toBe('ok');
    expect(await handshake({ server: old, client: asClient(secret), clientCaBundle, serverCaBundle: secret.caBundlePem })).toBe('ok');
    // The old pods, still calling the old ALB, are not disturbed: its certificate did not change.
    expect(w.acm.get(before.certificateArn ?? '')?.certificatePem).toBe(old.certificatePem);
  });

  it('a retry changes nothing; a rollback to the old name takes the old certificate back', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    const before = await readRecord(w.ports.bundles);
    const moved = await serveNewEndpoint(w.ports, { now: start, policy, serverNames: { dnsNames: ['renamed.example'] }, serverDnsName: 'renamed.example' });
    w.steps.length = 0;
    expect((await serveNewEndpoint(w.ports, { now: start, policy, serverNames: { dnsNames: ['renamed.example'] }, serverDnsName: 'renamed.example' })).certificateArn).toBe(moved.certificateArn);
    const back = await serveNewEndpoint(w.ports, { now: start, policy, serverNames: names, serverDnsName: 'localhost' });
    expect(w.steps).toEqual([]);
    expect(back.certificateArn).toBe(before.certificateArn);
    expect((await readRecord(w.ports.bundles)).retired).toEqual([{ arn: moved.certificateArn, dnsName: 'renamed.example' }]);
  });

  it('deleting the retired certificate once its listener is gone; one still in use stays retired', async () => {
    const start = new Date();
    const w = await firstGeneration(start);
    const before = await readRecord(w.ports.bundles);
    const moved = await serveNewEndpoint(w.ports, { now: start, policy, serverNames: { dnsNames: ['renamed.example'] }, serverDnsName: 'renamed.example' });
    // The world's listener is still the first certificate's: ACM refuses.
    expect(await deleteCertificates(w.ports, [before.certificateArn ?? ''])).toEqual({ deleted: [], inUse: [before.certificateArn] });
    expect((await readRecord(w.ports.bundles)).retired?.map((entry) => entry.arn)).toEqual([before.certificateArn]);
    expect(await deleteCertificates(w.ports, [moved.certificateArn])).toEqual({ deleted: [moved.certificateArn], inUse: [] });
    expect((await readRecord(w.ports.bundles)).certificateArn).toBeUndefined();
  });
});
