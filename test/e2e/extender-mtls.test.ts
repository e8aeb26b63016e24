// Only kube-scheduler reaches the extender: the ALB adapter's listener
// requires a client certificate (mutual TLS, verify mode, as the deployed
// ALB's) and the real gpu-scheduler presents one through its extender
// tlsConfig. The adapter enforces the Lambda's reserved concurrency as Lambda
// does (an invocation past the limit is throttled, the ALB answers 503), so a
// flood from a caller without credentials is a real attack: without mutual TLS
// it takes the scheduler's slots and stalls GPU scheduling; with it, the flood
// never gets past the handshake and scheduling keeps its quiet-run latency.
// Latencies are compared within this file's run, as ratios only.
import { request } from 'node:https';
import { join } from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../lambdas/certificates/x509';
import { e2eHarness } from '../../local/e2e-context';
import { createLocalMutualTls, type LocalMutualTls } from '../../local/extender-mtls';
import { createGpuNode, type GpuNode } from '../../local/gpu-nodes';
import { floodFromChildProcess, type FloodResult } from '../../local/loopback-flood';
import type { ManagedProcess } from '../../local/managed-process';
import { podEvents } from '../../local/pod-status';
import { startRecordingExtender, type RecordingExtender } from '../../local/recording-extender';
import { deployedExtenderSettings } from '../../local/scheduler-config';
import { sleep, waitFor } from '../../local/wait';
import { A10G_NODE_TYPE, T4_NODE_TYPE, a10gPod } from './extender-fault-fixtures';

const harness = e2eHarness();
const { core } = harness;

/** The deployed default (cdk/app-config): what a flood has to use up. */
const RESERVED_CONCURRENCY = 4;
/** A deployed warm `/filter` at 5,000 nodes (docs/benchmarks.md): how long each invocation holds its slot. */
const MIN_INVOCATION_MS = 10;
const FLOOD = { requests: 20_000, seconds: 10, concurrency: 32 };
/** Fewer than the A10G nodes' 12 GPUs: each run's pods are deleted before the next. */
const PODS_PER_RUN = 10;
const FLOOD_POD = 'loopback-flood/flood';

let namespace = '';
let nodes: GpuNode[] = [];
let mtls: LocalMutualTls | undefined;
let extender: RecordingExtender | undefined;
let scheduler: ManagedProcess | undefined;
let podCounter = 0;

/** Creates GPU pods one after another, each once the one before is bound; returns each one's create-to-bound time. */
async function scheduleOneByOne(count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = `gpu-${podCounter++}`;
    const started = performance.now();
    await core.createNamespacedPod({ namespace, body: a10gPod(name) });
    await waitFor(`pod ${name} to be bound`, async () => ((await core.readNamespacedPod({ namespace, name })).spec?.nodeName ? true : undefined), {
      intervalMs: 5,
      timeoutMs: 90_000,
    });
    latencies.push(performance.now() - started);
  }
  // Frees the GPUs for the next run (no kubelet: deletion is immediate with no grace period).
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 });
  await waitFor('the run\'s pods to be gone', async () => ((await core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined));
  return latencies;
}

const total = (values: number[]): number => values.reduce((sum, v) => sum + v, 0);

/**
 * A quiet run, the same run while a flood from a caller without credentials
 * hits the adapter, and a quiet run again once the flood is over; the ratio
 * is the flooded run's total over the mean of the two quiet ones, so that a
 * drift of the shared machine's load between runs is not taken for the flood's effect.
 */
async function floodRatio(url: string): Promise<{ ratio: number; detail: string; flood: FloodResult }> {
  const before = await scheduleOneByOne(PODS_PER_RUN);
  const flooding = floodFromChildProcess({ url, ...FLOOD });
  // Let the flood (and the child's tsx start-up) get going before the first pod.
  await sleep(2_000);
  const flooded = await scheduleOneByOne(PODS_PER_RUN);
  const flood = await flooding;
  const after = await scheduleOneByOne(PODS_PER_RUN);
  const ratio = total(flooded) / ((total(before) + total(after)) / 2);
  const list = (values: number[]): string => values.map(Math.round).join(',');
  const detail = `quiet ${list(before)} / ${list(after)} ms; flooded ${list(flooded)} ms; ratio ${ratio.toFixed(2)}; flood ${JSON.stringify(flood)}`;
  return { ratio, detail, flood };
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

afterAll(() => harness.tearDown(namespace, scheduler, extender));

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
    // The TLS listener's thread reports each refusal by message.
    await waitFor('both refusals to be counted', () => (extender && extender.adapter.refusedTlsHandshakes >= refusedBefore + 2 ? true : undefined));
    expect(extender.responses.length).toBe(answered);
  });

  it('a flood from a caller without the certificate leaves GPU scheduling within 1.2× of a quiet run', async () => {
    if (!extender) throw new Error('setup did not finish');
    const { ratio, detail, flood } = await floodRatio(extender.adapter.url);
    console.log(`[mutual TLS] ${detail}`);
    // Every flood request was refused at the handshake: none was answered, none reached the handler.
    expect(flood.sent, detail).toBe(FLOOD.requests);
    expect(flood.refused, detail).toBe(FLOOD.requests);
    expect(flood.statuses, detail).toEqual({});
    expect(extender.decisions.filter((d) => d.summary.pod === FLOOD_POD)).toEqual([]);
    expect(extender.adapter.throttledRequests, detail).toBe(0);
    expect(ratio, detail).toBeLessThanOrEqual(1.2);
  }, 300_000);
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

  it('reaches the handler, uses up the reserved concurrency and stalls GPU scheduling', async () => {
    if (!extender) throw new Error('setup did not finish');
    const firstPod = podCounter + PODS_PER_RUN;
    const { ratio, detail: runDetail, flood } = await floodRatio(extender.adapter.url);
    const detail = `${runDetail}; throttled ${extender.adapter.throttledRequests}`;
    console.log(`[plain HTTP] ${detail}`);
    // The flood was answered by the handler and by Lambda's throttle.
    expect(flood.statuses['200'] ?? 0, detail).toBeGreaterThan(0);
    expect(flood.statuses['503'] ?? 0, detail).toBeGreaterThan(0);
    expect(extender.decisions.filter((d) => d.summary.pod === FLOOD_POD).length).toBeGreaterThan(0);
    // The scheduler's own calls were throttled: its pods waited out backoffs.
    const events = await Promise.all(Array.from({ length: PODS_PER_RUN }, (_, i) => podEvents(core, { namespace, name: `gpu-${firstPod + i}` })));
    expect(events.map(extender503s).reduce((a, b) => a + b, 0), detail).toBeGreaterThan(0);
    expect(ratio, detail).toBeGreaterThan(1.2);
  }, 300_000);
});
