// Only kube-scheduler reaches the extender: the ALB adapter's listener
// requires a client certificate (mutual TLS, verify mode, as the deployed
// ALB's) and the real gpu-scheduler presents one through its extender
// tlsConfig. The adapter enforces the Lambda's reserved concurrency as Lambda
// does (an invocation past the limit is throttled, the ALB answers 503), so a
// flood from a caller without credentials is a real attack: without mutual TLS
// it takes the scheduler's slots and kube-scheduler's own extender calls are
// throttled; with it, the flood never gets past the handshake and none of
// kube-scheduler's calls is. The flood runs until told to stop, and every wait
// is on what the adapter or the cluster counts (refused handshakes, throttled
// invocations, bound pods, FailedScheduling events), never on a clock: on a
// busy machine things only take longer.
import { request } from 'node:https';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../lambdas/certificates/x509';
import { e2eHarness } from './support/e2e-context';
import { createLocalMutualTls, type LocalMutualTls } from '../../local/extender-host/extender-mtls';
import { createGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { FLOOD_POD, startFloodProcess, type RunningFlood } from '../../local/extender-host/loopback-flood';
import type { ManagedProcess } from '../../local/common/managed-process';
import { podEvents } from '../../local/nodes/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/extender-host/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;

/** The deployed default (cdk/app-config): what a flood has to use up. */
const RESERVED_CONCURRENCY = 4;
/** A deployed warm `/filter` at 5,000 nodes (docs/benchmarks.md): how long each invocation holds its slot. */
const MIN_INVOCATION_MS = 10;
/** 2,000 requests a second offer 20 invocations of 10 ms at once: five times the reserved concurrency. */
const FLOOD = { ratePerSecond: 2_000, concurrency: 32 };
/** Refused handshakes (with mutual TLS) or throttled invocations (without) counted before the first pod: the flood is under way. */
const FLOOD_UNDER_WAY = 200;
/** Fewer than the A10G nodes' 12 GPUs: each run's pods are deleted before the next. */
const PODS_PER_RUN = 10;
/** Generous bounds of waits that end as soon as their condition holds; they only guard against a hang. */
const FLOOD_START_TIMEOUT_MS = 120_000;
const THROTTLED_ATTEMPT_TIMEOUT_MS = 150_000;
/** A pod whose filter call was throttled is retried after kube-scheduler's backoff (1 s doubling to 10 s). */
const BOUND_AFTER_FLOOD_TIMEOUT_MS = 120_000;

let namespace = '';
let nodes: GpuNode[] = [];
let mtls: LocalMutualTls | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let flood: RunningFlood | undefined;
let podCounter = 0;

const nextPodNames = (count: number): string[] => Array.from({ length: count }, () => `gpu-${podCounter++}`);

const isBound = async (name: string): Promise<boolean> => Boolean((await core.readNamespacedPod({ namespace, name })).spec?.nodeName);

/** Frees the GPUs for the next run (no kubelet: deletion is immediate with no grace period). */
async function deleteRunPods(): Promise<void> {
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  await waitFor('the run\'s pods to be gone', async () => ((await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined));
}

/** Creates GPU pods one after another, each once the one before is bound, then deletes them; returns their names. */
async function scheduleOneByOne(count: number): Promise<string[]> {
  const names = nextPodNames(count);
  for (const name of names) {
    await core.createNamespacedPod({ namespace, body: a10gPod(name) });
    await waitFor(`pod ${name} to be bound`, async () => ((await isBound(name)) ? true : undefined), { intervalMs: 50, timeoutMs: 120_000 });
  }
  await deleteRunPods();
  return names;
}

/** FailedScheduling events of these pods that name the extender's 503: kube-scheduler's record of a throttled call. */
async function throttledAttempts(pods: string[]): Promise<number> {
  const events = await Promise.all(pods.map((name) => podEvents(core, { namespace, name })));
  return events.map(extender503s).reduce((a, b) => a + b, 0);
}

/** The flood's calls the handler answered (its decision log names the flood's pod). */
const floodDecisions = (): number => (extender?.decisions ?? []).filter((d) => d.summary.pod === `${FLOOD_POD.namespace}/${FLOOD_POD.name}`).length;

async function stopFlood(): Promise<Awaited<ReturnType<RunningFlood['stop']>>> {
  const running = flood ?? fail();
  flood = undefined;
  return running.stop();
}

function fail(): never {
  throw new Error('setup did not finish');
}

async function connectWithout(url: string, credentials?: { cert: string; key: string }): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${url}/filter`, { method: 'POST', rejectUnauthorized: false, ...credentials }, (res) => {
      res.resume();
      resolve(`HTTP ${res.statusCode}`);
    });
    req.on('error', (error) => resolve(`refused: ${error.message}`));
    req.end('{}');
  });
}

const extender503s = (events: CoreV1Event[]): number =>
  events.filter((e) => e.reason === 'FailedScheduling' && /code 503/.test(e.message ?? '')).length;

beforeAll(async () => {
  await harness.resetCluster();
  namespace = await harness.createNamespace('extender-mtls');
  nodes = await Promise.all([A10G_NODE_TYPE, A10G_NODE_TYPE, A10G_NODE_TYPE, T4_NODE_TYPE].map((instanceType) => createGpuNode(harness.nodeClients, { instanceType, seedLabels: true })));
  mtls = await createLocalMutualTls(join(harness.info.controlPlane.logDir, `extender-mtls-${process.pid}`));
});

afterAll(async () => {
  // A failed test may leave its flood running.
  await flood?.stop().catch(() => undefined);
  await harness.tearDown(namespace, scheduler, extender);
});

describe('the extender behind mutual TLS', () => {
  beforeAll(async () => {
    if (!mtls) throw new Error('setup did not finish');
    extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' }, {
      tls: mtls.adapter,
      reservedConcurrency: RESERVED_CONCURRENCY,
      minInvocationMs: MIN_INVOCATION_MS,
    });
    scheduler = await harness.startGpuScheduler({ ...deployedExtenderSettings(extender.adapter.url), tlsConfig: mtls.scheduler });
  });

  it('schedules GPU pods through mutual TLS, each placement the extender\'s', async () => {
    if (!extender) throw new Error('setup did not finish');
    expect(extender.adapter.url).toMatch(/^https:/);
    await scheduleOneByOne(2);
    expect(extender.filterDecisionsOf(namespace, 'gpu-0')[0]).toMatchObject({ mode: 'NodeNames', candidates: 4, kept: 3 });
    expect(extender.filterDecisionsOf(namespace, 'gpu-1')[0]).toMatchObject({ kept: 3 });
    expect(nodes).toHaveLength(4);
    expect(extender.responses.filter((r) => r.status !== 200)).toEqual([]);
  });

  it('refuses a client without the certificate, or with one from another CA, before the handler runs', async () => {
    if (!extender) throw new Error('setup did not finish');
    const answered = extender.responses.length;
    const refusedBefore = extender.adapter.refusedTlsHandshakes;
    expect(await connectWithout(extender.adapter.url)).toMatch(/^refused: /);
    const now = Date.now();
    const otherCa = issueCertificate({ role: 'ca', commonName: 'other', notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
    const stranger = issueCertificate(
      { role: 'client', commonName: 'gpu-scheduler', notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) },
      { commonName: 'other', privateKey: otherCa.privateKey, publicKey: otherCa.publicKey },
    );
    expect(await connectWithout(extender.adapter.url, { cert: stranger.certificatePem, key: stranger.privateKeyPem })).toMatch(/^refused: /);
    // The TLS listener's process reports refusals in batches.
    await waitFor('both refusals to be counted', () => (extender && extender.adapter.refusedTlsHandshakes >= refusedBefore + 2 ? true : undefined));
    expect(extender.responses.length).toBe(answered);
  });

  it('a flood from a caller without the certificate is refused at the handshake, and none of kube-scheduler\'s calls is throttled', async () => {
    const { adapter } = extender ?? fail();
    const answeredBefore = extender?.responses.length ?? 0;
    const refusedBefore = adapter.refusedTlsHandshakes;
    flood = startFloodProcess({ url: adapter.url, ...FLOOD });
    await waitFor(`${FLOOD_UNDER_WAY} of the flood's handshakes to be refused`, () => (adapter.refusedTlsHandshakes >= refusedBefore + FLOOD_UNDER_WAY ? true : undefined), {
      timeoutMs: FLOOD_START_TIMEOUT_MS,
    });
    const pods = await scheduleOneByOne(PODS_PER_RUN);
    // The flood was still under way when the last pod was bound: it covered every pod's scheduling.
    const refusedAtLastPod = adapter.refusedTlsHandshakes;
    await waitFor('the flood to go on after the last pod was bound', () => (adapter.refusedTlsHandshakes > refusedAtLastPod ? true : undefined), {
      timeoutMs: FLOOD_START_TIMEOUT_MS,
    });
    const result = await stopFlood();
    const calls = (extender?.responses ?? []).slice(answeredBefore);
    const detail = `flood ${JSON.stringify(result)}; refused handshakes ${adapter.refusedTlsHandshakes - refusedBefore}; scheduler calls ${calls.length}`;
    console.log(`[mutual TLS] ${detail}`);
    // Every flood request was refused at the handshake: none was answered, none reached the handler.
    expect(result.sent, detail).toBeGreaterThanOrEqual(FLOOD_UNDER_WAY);
    expect(result.refused, detail).toBe(result.sent);
    expect(result.statuses, detail).toEqual({});
    expect(floodDecisions()).toBe(0);
    // kube-scheduler's own calls all reached the handler and were answered 200; Lambda throttled none.
    expect(adapter.throttledRequests, detail).toBe(0);
    expect(calls.length, detail).toBeGreaterThanOrEqual(PODS_PER_RUN);
    expect(calls.filter((r) => r.status !== 200), detail).toEqual([]);
    for (const pod of pods) expect(extender?.filterDecisionsOf(namespace, pod).length, pod).toBeGreaterThan(0);
    expect(await throttledAttempts(pods), detail).toBe(0);
  }, 400_000);
});

describe('the same flood without mutual TLS', () => {
  beforeAll(async () => {
    await scheduler?.stop();
    await extender?.stop();
    extender = await startRecordingExtender(harness.info.controlPlane.lambdaKubeconfigs.extender, { EXTENDER_CACHE_TTL: '1s' }, {
      reservedConcurrency: RESERVED_CONCURRENCY,
      minInvocationMs: MIN_INVOCATION_MS,
    });
    scheduler = await harness.startGpuScheduler(deployedExtenderSettings(extender.adapter.url));
    // A warm container, as in the run above.
    await scheduleOneByOne(1);
  });

  it('reaches the handler, uses up the reserved concurrency, and kube-scheduler\'s own calls are throttled', async () => {
    const { adapter } = extender ?? fail();
    const throttledBefore = adapter.throttledRequests;
    flood = startFloodProcess({ url: adapter.url, ...FLOOD });
    await waitFor(`Lambda to throttle ${FLOOD_UNDER_WAY} of the flood's invocations`, () => (adapter.throttledRequests >= throttledBefore + FLOOD_UNDER_WAY ? true : undefined), {
      timeoutMs: FLOOD_START_TIMEOUT_MS,
    });
    const pods = nextPodNames(PODS_PER_RUN);
    for (const name of pods) await core.createNamespacedPod({ namespace, body: a10gPod(name) });
    // kube-scheduler's own record of a throttled filter call: a FailedScheduling event naming the extender's 503.
    await waitFor('a FailedScheduling event with the extender\'s 503', async () => ((await throttledAttempts(pods)) > 0 ? true : undefined), {
      timeoutMs: THROTTLED_ATTEMPT_TIMEOUT_MS,
      intervalMs: 500,
    });
    const result = await stopFlood();
    const detail = `flood ${JSON.stringify(result)}; throttled ${adapter.throttledRequests - throttledBefore}; attempts throttled ${await throttledAttempts(pods)}`;
    console.log(`[plain HTTP] ${detail}`);
    // The flood was answered by the handler and by Lambda's throttle.
    expect(result.statuses['200'] ?? 0, detail).toBeGreaterThan(0);
    expect(result.statuses['503'] ?? 0, detail).toBeGreaterThan(0);
    expect(floodDecisions()).toBeGreaterThan(0);
    // Once the flood has stopped, every throttled pod is retried after its backoff and bound.
    await waitFor('every pod bound once the flood stopped', async () => ((await Promise.all(pods.map(isBound))).every(Boolean) ? true : undefined), {
      timeoutMs: BOUND_AFTER_FLOOD_TIMEOUT_MS,
      intervalMs: 500,
    });
    await deleteRunPods();
  }, 400_000);
});
