// The metrics reconciler against moto (CloudWatch) and the real
// kube-apiserver + kube-controller-manager: its deletion costs must steer the
// real ReplicaSet controller's scale-down, and its write discipline must hold.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRIC, SERVICE } from '../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import { DEFAULT_POD_SELECTOR } from '../../lambdas/reconciler/config';
import { createReconcilerHandler } from '../../lambdas/reconciler/reconciler-handler';
import { e2eHarness } from './support/e2e-context';
import { localLambdaContext } from '../../local/aws/lambda-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { finishTerminatingPods } from '../../local/nodes/pod-status';
import { waitFor } from '../../local/common/wait';
import type { AppMetrics } from './reconciler-fixtures';
import {
  cloudWatch,
  createReadyReplicaSet,
  deletionCost,
  markReady,
  OPT_IN,
  PAUSE_IMAGE,
  podsByName,
  publishNodeUtilization,
  publishPodMetrics,
  reconcilerEnv,
  reconcilerKube,
} from './reconciler-fixtures';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube/merge-patch';

const harness = e2eHarness();
const { core, apps } = harness;
const cw = cloudWatch(harness.info);
const OPT_IN_SELECTOR = DEFAULT_POD_SELECTOR;
const HOUR_AGO = () => new Date(Date.now() - 3_600_000);

let namespace = '';
let node: GpuNode;

beforeAll(async () => {
  namespace = await harness.createNamespace('reconciler');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', labels: { 'reconciler-e2e': namespace } });
});

afterAll(async () => {
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (node) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
});

async function createDeployment(name: string, replicas: number): Promise<V1Pod[]> {
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name, ...OPT_IN } },
          // Bound to the harness node directly: no scheduler involved, and
          // every pod ranks the same on "assigned" for the ReplicaSet.
          spec: { nodeName: node.name, containers: [{ name: 'app', image: PAUSE_IMAGE }], terminationGracePeriodSeconds: 30 },
        },
      },
    },
  });
  return waitFor(`${replicas} pods of deployment ${name}`, async () => {
    const pods = [...(await podsByName(core, namespace, `app=${name}`)).values()].filter((p) => !p.metadata?.deletionTimestamp);
    return pods.length === replicas ? pods : undefined;
  });
}

const reconcilerContext = () => localLambdaContext({ functionName: SERVICE.reconciler, timeoutMs: 300_000 });
const runWith = (overrides: Record<string, string> = {}) => {
  const handler = createReconcilerHandler({ env: reconcilerEnv(harness.info, namespace, overrides), ...reconcilerKube(harness.info) });
  return (event: Record<string, never>) => handler(event, reconcilerContext());
};

describe('reconciler end to end', () => {
  it('makes the real ReplicaSet controller delete the two least valuable pods on scale-down', async () => {
    const pods = await createDeployment('web', 5);
    const names = pods.map((p) => p.metadata?.name ?? '').sort();
    const [idleA, idleB, ...busy] = names as [string, string, ...string[]];
    // The idle pods have been Ready for an hour, the busy ones only now: left
    // to itself the controller would delete the most recently Ready (busy) ones.
    for (const pod of pods) await markReady(core, pod, [idleA, idleB].includes(pod.metadata?.name ?? '') ? HOUR_AGO() : new Date());

    const busyMetrics: AppMetrics[] = [
      { activeRequests: 100, cacheHitRate: 0.9, avgResponseTimeMs: 50 }, // 640
      { activeRequests: 60, cacheHitRate: 0.8, avgResponseTimeMs: 80 }, // 430
      { activeRequests: 40, cacheHitRate: 0.7, avgResponseTimeMs: 200 }, // 290
    ];
    const metrics = new Map<string, AppMetrics>(busy.map((name, i) => [name, busyMetrics[i] ?? {}]));
    metrics.set(idleA, { activeRequests: 1, cacheHitRate: 0.05, avgResponseTimeMs: 900 }); // 10 → bucket 0
    // idleB publishes nothing: no signal, cost 0.
    await publishPodMetrics(cw, namespace, metrics);

    const summary = await runWith({ NODE_UTILIZATION_ENABLED: 'false' })({});
    expect(summary).toMatchObject({ podsEvaluated: 5, podsWithoutMetrics: 1, deletionCostsWritten: 3, skippedUnchanged: 2, errors: [] });
    const written = await podsByName(core, namespace, 'app=web');
    expect(busy.map((n) => deletionCost(written.get(n) as V1Pod))).toEqual(['600', '400', '250']);
    expect(deletionCost(written.get(idleA) as V1Pod)).toBeUndefined();
    expect(deletionCost(written.get(idleB) as V1Pod)).toBeUndefined();

    await apps.patchNamespacedDeployment({ namespace, name: 'web', body: { spec: { replicas: 3 } } }, MERGE_PATCH_OPTIONS);
    const deleted = await waitFor('the ReplicaSet to delete two pods', async () => {
      const now = [...(await podsByName(core, namespace, 'app=web')).values()];
      const terminating = now.filter((p) => p.metadata?.deletionTimestamp).map((p) => p.metadata?.name ?? '');
      return terminating.length === 2 ? terminating.sort() : undefined;
    });
    expect(deleted).toEqual([idleA, idleB]);

    // Terminating pods are left alone (no kubelet finishes them yet).
    const next = await runWith({ NODE_UTILIZATION_ENABLED: 'false' })({});
    expect(next).toMatchObject({ skippedTerminating: 2, podsEvaluated: 3, deletionCostsWritten: 0 });
    await finishTerminatingPods(core, namespace);
  });

  it('writes nothing when metrics are unchanged or move inside the hysteresis band, and writes a real change', async () => {
    const pods = await createDeployment('api', 3);
    const names = pods.map((p) => p.metadata?.name ?? '').sort();
    for (const pod of pods) await markReady(core, pod, HOUR_AGO());
    const [a, b, c] = names as [string, string, string];
    await publishPodMetrics(
      cw,
      namespace,
      new Map<string, AppMetrics>([
        [a, { activeRequests: 80, cacheHitRate: 0.5, avgResponseTimeMs: 300 }], // 400+50+20 = 470 → 450
        [b, { activeRequests: 20, cacheHitRate: 0.5, avgResponseTimeMs: 300 }], // 170 → 150
        [c, { activeRequests: 10, cacheHitRate: 0.5, avgResponseTimeMs: 300 }], // 120 → 100
      ]),
    );
    const reconcileOnce = runWith({ NODE_UTILIZATION_ENABLED: 'false', POD_SELECTOR: `${OPT_IN_SELECTOR},app=api` });
    expect(await reconcileOnce({})).toMatchObject({ deletionCostsWritten: 3, errors: [] });
    const versions = async () => [...(await podsByName(core, namespace, 'app=api')).values()].map((p) => p.metadata?.resourceVersion);
    const before = await versions();

    expect(await reconcileOnce({})).toMatchObject({ deletionCostsWritten: 0, skippedUnchanged: 3 });
    expect(await versions()).toEqual(before);

    // Averages over the lookback window (two datapoints per metric now):
    // a: 80 again → 470, same bucket 450;
    // b: (20 + 10) / 2 = 15 → 145: below its 150 bucket but within the 10-point band;
    // c: (10 + 24) / 2 = 17 → 155: into the 150 bucket but within the band above its 100 bucket.
    await publishPodMetrics(
      cw,
      namespace,
      new Map<string, AppMetrics>([
        [a, { activeRequests: 80, cacheHitRate: 0.5, avgResponseTimeMs: 300 }],
        [b, { activeRequests: 10, cacheHitRate: 0.5, avgResponseTimeMs: 300 }],
        [c, { activeRequests: 24, cacheHitRate: 0.5, avgResponseTimeMs: 300 }],
      ]),
    );
    expect(await reconcileOnce({})).toMatchObject({ deletionCostsWritten: 0, skippedUnchanged: 3 });
    expect(await versions()).toEqual(before);

    // c's traffic really drops: three idle readings pull its averages to
    // requests 6.8, hit rate 0.2, latency 3120 ms → 54, bucket 50: one write.
    for (let i = 0; i < 3; i += 1) {
      await publishPodMetrics(cw, namespace, new Map([[c, { activeRequests: 0, cacheHitRate: 0, avgResponseTimeMs: 5000 }]]));
    }
    expect(await reconcileOnce({})).toMatchObject({ deletionCostsWritten: 1, skippedUnchanged: 2 });
    const after = await podsByName(core, namespace, 'app=api');
    expect(deletionCost(after.get(c) as V1Pod)).toBe('50');
    expect(deletionCost(after.get(b) as V1Pod)).toBe('150');
    expect(deletionCost(after.get(a) as V1Pod)).toBe('450');
  });

  it('respects the per-run write cap with 200 pods, largest changes first', async () => {
    const names = await createReadyReplicaSet({ core, apps }, namespace, 'bulk', 200, node.name, HOUR_AGO());
    // Cost = 5 × i (no hit rate, latency too slow for a bonus): buckets 0..950.
    await publishPodMetrics(cw, namespace, new Map(names.map((n, i) => [n, { activeRequests: i, avgResponseTimeMs: 10_000 }])));

    const summary = await runWith({ NODE_UTILIZATION_ENABLED: 'false', POD_SELECTOR: `${OPT_IN_SELECTOR},app=bulk`, MAX_POD_WRITES_PER_RUN: '25' })({});
    expect(summary).toMatchObject({ podsEvaluated: 200, deletionCostsWritten: 25, errors: [] });
    // No annotation counts as 0, bucket 0..49: pods 0..9 (0..45) stay there and
    // pods 10 and 11 (50, 55) are within the 10-point band above it: unchanged.
    // The other 188 want a write; 25 get one.
    expect(summary.skippedUnchanged).toBe(12);
    expect(summary.skippedBudget).toBe(163);

    const pods = await podsByName(core, namespace, 'app=bulk');
    const annotated = names.filter((n) => deletionCost(pods.get(n) as V1Pod) !== undefined);
    expect(annotated).toHaveLength(25);
    // Buckets 950 and 900 (pods 180..199) all made it; the rest of the budget went to bucket 850.
    expect(names.slice(180).every((n) => annotated.includes(n))).toBe(true);
    expect(annotated.every((n) => names.indexOf(n) >= 170)).toBe(true);
  });

  it('gives pods in warm-up the warm-up cost, whatever their metrics', async () => {
    const [fresh = ''] = await createReadyReplicaSet({ core, apps }, namespace, 'fresh', 1, node.name, new Date());
    await publishPodMetrics(cw, namespace, new Map([[fresh, { activeRequests: 150, cacheHitRate: 1, avgResponseTimeMs: 10 }]]));
    const summary = await runWith({ NODE_UTILIZATION_ENABLED: 'false', POD_SELECTOR: `${OPT_IN_SELECTOR},app=bulk`, WARMUP_PERIOD: '5m', MAX_POD_WRITES_PER_RUN: '500' })({});
    expect(summary.podsWarmingUp).toBe(1);
    expect(deletionCost(await core.readNamespacedPod({ namespace, name: fresh }))).toBe('-50');
  });

  it('writes no cost on opted-in pods no controller reads it of (a StatefulSet pod, a bare pod) and reports them by owner kind', async () => {
    const owners = await harness.createNamespace('reconciler-owners');
    try {
      const [replica = ''] = await createReadyReplicaSet({ core, apps }, owners, 'web', 1, node.name, HOUR_AGO());
      await apps.createNamespacedStatefulSet({
        namespace: owners,
        body: {
          metadata: { name: 'db' },
          spec: {
            serviceName: 'db',
            replicas: 1,
            selector: { matchLabels: { app: 'db' } },
            template: { metadata: { labels: { app: 'db', ...OPT_IN } }, spec: { nodeName: node.name, containers: [{ name: 'db', image: PAUSE_IMAGE }] } },
          },
        },
      });
      const member = await waitFor('the StatefulSet pod db-0', () => core.readNamespacedPod({ namespace: owners, name: 'db-0' }).catch(() => undefined));
      await markReady(core, member, HOUR_AGO());
      const bare = await core.createNamespacedPod({
        namespace: owners,
        body: { metadata: { name: 'debug', labels: OPT_IN }, spec: { nodeName: node.name, containers: [{ name: 'app', image: PAUSE_IMAGE }] } },
      });
      await markReady(core, bare, HOUR_AGO());
      const busy = { activeRequests: 100, cacheHitRate: 0.9, avgResponseTimeMs: 50 };
      await publishPodMetrics(cw, owners, new Map([replica, 'db-0', 'debug'].map((name) => [name, busy])));
      const before = await podsByName(core, owners);

      process.env.POWERTOOLS_DEV = 'true';
      const telemetry = createTelemetry(SERVICE.reconciler);
      const warn = vi.spyOn(telemetry.logger, 'warn');
      const record = vi.spyOn(telemetry, 'record');
      const summary = await createReconcilerHandler({ env: reconcilerEnv(harness.info, owners, { NODE_UTILIZATION_ENABLED: 'false' }), ...reconcilerKube(harness.info), telemetry })({}, reconcilerContext());

      // Only the ReplicaSet's pod is queried and written.
      expect(summary).toMatchObject({
        podsEvaluated: 1,
        metricQueries: 3,
        deletionCostsWritten: 1,
        podsNotCovered: { StatefulSet: 1, None: 1, Job: 0, DaemonSet: 0, Other: 0 },
        errors: [],
      });
      const after = await podsByName(core, owners);
      expect(deletionCost(after.get(replica) as V1Pod)).toBe('600');
      for (const name of ['db-0', 'debug']) {
        expect(deletionCost(after.get(name) as V1Pod), name).toBeUndefined();
        expect(after.get(name)?.metadata?.resourceVersion, name).toBe(before.get(name)?.metadata?.resourceVersion);
      }
      expect(record).toHaveBeenCalledWith(METRIC.podsNotCovered, 1, { OwnerKind: 'StatefulSet' });
      expect(record).toHaveBeenCalledWith(METRIC.podsNotCovered, 1, { OwnerKind: 'None' });
      const lines = warn.mock.calls.filter(([message]) => String(message).startsWith('opted-in pods left without a deletion cost'));
      expect(lines).toHaveLength(1);
      expect(lines[0]?.[1]).toEqual({
        byOwnerKind: { StatefulSet: 1, None: 1 },
        examples: [`${owners}/db-0 (apps/v1 StatefulSet)`, `${owners}/debug (no controller)`],
      });
    } finally {
      await core.deleteNamespace({ name: owners }).catch(() => undefined);
    }
  });

  it('writes node GPU utilization from Container Insights as the annotation the extender reads', async () => {
    await publishNodeUtilization(cw, node, 57.3);
    const reconcileNodes = runWith({ POD_SELECTOR: 'app=none' });
    const summary = await reconcileNodes({});
    expect(summary).toMatchObject({ nodesEvaluated: 1, nodeUtilizationWritten: 1, errors: [] });
    const written = await core.readNode({ name: node.name });
    expect(written.metadata?.annotations?.['gpu.nvidia.com/utilization']).toBe('50');
    expect(await reconcileNodes({})).toMatchObject({ nodeUtilizationWritten: 0, nodeWritesSkippedUnchanged: 1 });
  });
});
