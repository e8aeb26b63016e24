// The deletion-cost reconciler when CloudWatch throttles, fails or answers
// slowly: its own SDK client (lambdas/aws/clients.ts, AWS_RETRY) reads the
// pods' metrics from moto through local/proxies/aws-fault-proxy.ts, which answers
// chosen calls with CloudWatch's real `Throttling` and `InternalServiceError`
// (JSON 1.0), or forwards them late. 80 opted-in pods of a real ReplicaSet.
// Asserts: throttling the retries absorb is no failure (no dead-letter
// message) and the costs are written; metrics that stay unreadable fail the
// run after AWS_RETRY.maxAttempts tries and write nothing (no data must not
// look like idle pods); when metrics come back, the writes stay within the
// per-run budget (MAX_POD_WRITES_PER_RUN, 50), the rest follow in the next run.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AWS_RETRY } from '../../lambdas/aws/clients';
import { METRIC, SERVICE } from '../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import type { ReconcileSummary } from '../../lambdas/reconciler/reconcile';
import { createReconcilerHandler } from '../../lambdas/reconciler/reconciler-handler';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { startAwsFaultProxy, type AwsCall, type AwsFaultProxy } from '../../local/proxies/aws-fault-proxy';
import type { FaultPlan } from '../../local/proxies/fault-plan';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { cloudWatch, createReadyReplicaSet, deletionCost, podsByName, publishPodMetrics, reconcilerEnv, reconcilerKube, type AppMetrics } from './reconciler-fixtures';

const harness = e2eHarness();
const { core, apps } = harness;
const POD_COUNT = 80;
const BUDGET = 50;
/** Its own region: moto keeps CloudWatch data per region, so other files' datapoints do not slow its scans. */
const REGION = 'eu-north-1';
const TIMEOUT_MS = APP_CONFIG_DEFAULTS.reconciler.timeoutSeconds * 1000;

let namespace = '';
let node: GpuNode | undefined;
let proxy: AwsFaultProxy | undefined;
let plan: FaultPlan<AwsCall> | undefined;
/** Calls per `<service> <action>` the proxy saw since the last reset. */
const attempts = (): ReadonlyMap<string, number> => proxy?.attempts ?? new Map<string, number>();

function reconciler() {
  if (!proxy) throw new Error('setup did not finish');
  const telemetry = createTelemetry(SERVICE.reconciler);
  const record = vi.spyOn(telemetry, 'record');
  const handler = createReconcilerHandler({
    env: reconcilerEnv(harness.info, namespace, { AWS_ENDPOINT_URL: proxy.url, AWS_REGION: REGION, NODE_UTILIZATION_ENABLED: 'false', MAX_POD_WRITES_PER_RUN: String(BUDGET) }),
    ...reconcilerKube(harness.info),
    telemetry,
  });
  const run = async (): Promise<{ summary?: ReconcileSummary; error?: string; ms: number }> => {
    proxy?.resetAttempts();
    const started = Date.now();
    try {
      const summary = await handler({}, localLambdaContext({ functionName: SERVICE.reconciler, timeoutMs: TIMEOUT_MS }));
      return { summary, ms: Date.now() - started };
    } catch (error) {
      return { error: String(error), ms: Date.now() - started };
    }
  };
  const cloudWatchErrors = () => record.mock.calls.filter(([metric, , dims]) => metric === METRIC.reconcilerErrors && dims?.Kind === 'CloudWatch').length;
  return { run, cloudWatchErrors };
}

const withCost = async () => [...(await podsByName(core, namespace)).values()].filter((pod) => deletionCost(pod) !== undefined).length;
const getMetricDataTries = () => attempts().get('monitoring GetMetricData') ?? 0;

beforeAll(async () => {
  namespace = await harness.createNamespace('aws-faults-reconciler');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', labels: { 'reconciler-e2e': namespace } });
  const names = await createReadyReplicaSet({ core, apps }, namespace, 'costs', POD_COUNT, node.name, new Date(Date.now() - 3_600_000));
  // Busy pods of different loads: each gets a cost off the floor.
  const metrics = new Map<string, AppMetrics>(names.map((name, i) => [name, { activeRequests: 5 + i * 3, cacheHitRate: 0.5, avgResponseTimeMs: 100 }]));
  await publishPodMetrics(cloudWatch(harness.info, REGION), namespace, metrics);
  proxy = await startAwsFaultProxy({
    target: harness.info.motoUrl,
    faults: (call, attempt) => plan?.(call, attempt),
  });
});

afterAll(async () => {
  plan = undefined;
  await proxy?.stop();
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (node) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
});

describe('the reconciler when CloudWatch throttles, fails or is slow', () => {
  it('Throttling on every try: the run fails after the configured attempts, within its timeout, and writes nothing', async () => {
    const { run, cloudWatchErrors } = reconciler();
    plan = (call) => (call.service === 'monitoring' ? { kind: 'throttle' } : undefined);
    const result = await run();
    plan = undefined;
    console.log(`throttled throughout: failed after ${(result.ms / 1000).toFixed(1)} s, ${getMetricDataTries()} GetMetricData tries: ${result.error?.slice(0, 160) ?? 'no error'}`);
    expect(result.error).toMatch(/ReconcileFailedError|reconcile failed: readMetrics: .*Rate exceeded/);
    expect(getMetricDataTries()).toBe(AWS_RETRY.maxAttempts);
    // Generous on purpose (a busy machine slows everything but the back-off): the retries end inside the deployed timeout.
    expect(result.ms).toBeLessThan(TIMEOUT_MS);
    expect(cloudWatchErrors()).toBe(1);
    expect(await withCost()).toBe(0);
  });

  it('Throttling twice, then answers: no failure, and the writes the metrics bring back stay within the budget per run', async () => {
    const { run, cloudWatchErrors } = reconciler();
    plan = (call, attempt) => (call.service === 'monitoring' && attempt <= 2 ? { kind: 'throttle' } : undefined);
    const first = await run();
    plan = undefined;
    console.log(`throttled twice: ${first.summary?.deletionCostsWritten ?? '?'} costs written in ${(first.ms / 1000).toFixed(1)} s after ${getMetricDataTries()} GetMetricData tries`);
    expect(first.error).toBeUndefined();
    expect(getMetricDataTries()).toBe(3);
    expect(cloudWatchErrors()).toBe(0);
    // All 80 pods want a cost now; one run writes the budget's worth, the next the rest.
    expect(first.summary?.deletionCostsWritten).toBe(BUDGET);
    expect(first.summary?.skippedBudget).toBe(POD_COUNT - BUDGET);
    const second = await run();
    expect(second.summary?.deletionCostsWritten).toBe(POD_COUNT - BUDGET);
    expect(await withCost()).toBe(POD_COUNT);
  });

  it('InternalServiceError on every try, then 5 s per call: the costs already written stay; the slow run succeeds within its timeout and writes nothing new', async () => {
    const { run, cloudWatchErrors } = reconciler();
    plan = (call) => (call.service === 'monitoring' ? { kind: 'status', status: 500 } : undefined);
    const failed = await run();
    plan = undefined;
    expect(failed.error).toMatch(/reconcile failed: readMetrics: .*(InternalServiceError|Internal service error)/);
    expect(getMetricDataTries()).toBe(AWS_RETRY.maxAttempts);
    expect(cloudWatchErrors()).toBe(1);
    expect(await withCost()).toBe(POD_COUNT);

    plan = (call) => (call.service === 'monitoring' ? { kind: 'delay', ms: 5_000 } : undefined);
    const slow = await run();
    plan = undefined;
    console.log(`500s: failed after ${(failed.ms / 1000).toFixed(1)} s; 5 s per call: ran ${(slow.ms / 1000).toFixed(1)} s, wrote ${slow.summary?.deletionCostsWritten ?? '?'}`);
    expect(slow.error).toBeUndefined();
    expect(slow.ms).toBeGreaterThanOrEqual(5_000);
    expect(slow.ms).toBeLessThan(TIMEOUT_MS);
    expect(getMetricDataTries()).toBe(1);
    // Same metrics, same buckets: nothing to write.
    expect(slow.summary?.deletionCostsWritten).toBe(0);
  });
});
