// CloudWatch economy at scale: 1,000 opted-in pods of a ReplicaSet on the real API server
// must cost exactly ceil(3 × 1000 / 500) = 6 GetMetricData calls per run
// (counted with an SDK middleware on the reconciler's own client), and the
// values must come back for pods in every batch.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../../lambdas/reconciler/reconcile';
import { wireReconciler } from '../../lambdas/reconciler/wiring';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, type GpuNode } from '../../local/nodes/gpu-nodes';
import { waitFor } from '../../local/common/wait';
import { cloudWatch, createReadyReplicaSet, deletionCost, podsByName, publishPodMetrics, reconcilerEnv, reconcilerKube } from './reconciler-fixtures';

const harness = e2eHarness();
const { core, apps } = harness;
const POD_COUNT = 1000;
// A region of its own: moto keeps CloudWatch data per region, so other files'
// datapoints do not slow its GetMetricData scans down.
const REGION = 'eu-west-1';

let namespace = '';
let node: GpuNode;
/** Sorted, as listed and queried: names[i] is the i-th pod of the run. */
let names: string[] = [];

beforeAll(async () => {
  namespace = await harness.createNamespace('reconciler-scale');
  node = await createGpuNode(harness.nodeClients, { instanceType: 'g5.xlarge', labels: { 'reconciler-e2e': namespace } });
  names = await createReadyReplicaSet({ core, apps }, namespace, 'scale', POD_COUNT, node.name, new Date(Date.now() - 3_600_000));
});

afterAll(async () => {
  if (!namespace) return;
  // The ReplicaSet first, so nothing recreates the pods; then the pods at once (no kubelet finishes a
  // graceful deletion); the file ends only when none is left: 1,000 opted-in pods still terminating
  // would be the next file's (preflight counts them, schedulers queue them).
  await apps.deleteCollectionNamespacedReplicaSet({ namespace }).catch(() => undefined);
  await core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  if (node) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
  await waitFor(`the pods of namespace ${namespace} deleted`, async () => ((await core.listNamespacedPod({ namespace, limit: 1 })).items.length === 0 ? true : undefined), {
    timeoutMs: 300_000,
    intervalMs: 1_000,
  });
}, 360_000);

describe('reconciler at 1,000 pods', () => {
  it('reads all metrics in ceil(3000 / 500) GetMetricData calls and applies values from every batch', async () => {
    // One pod per 500-query batch boundary region: first, last of a batch, first of the next, the very last.
    const pod = (index: number): string => names[index] ?? '';
    const sampled = new Map([
      [pod(0), { activeRequests: 100 }], // 500
      [pod(166), { activeRequests: 120, avgResponseTimeMs: 50 }], // queries 498..500 span batches 1 and 2 → 650
      [pod(500), { activeRequests: 140 }], // 700
      [pod(999), { activeRequests: 160, cacheHitRate: 1 }], // 900
    ]);
    const cw = cloudWatch(harness.info, REGION);
    await publishPodMetrics(cw, namespace, sampled);

    let getMetricDataCalls = 0;
    const counted = cloudWatch(harness.info, REGION);
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetMetricDataCommand') getMetricDataCalls += 1;
        return next(args);
      },
      { step: 'finalizeRequest', name: 'countGetMetricData' },
    );
    const env = reconcilerEnv(harness.info, namespace, {
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      NODE_UTILIZATION_ENABLED: 'false',
      MAX_POD_WRITES_PER_RUN: '1000',
    });
    const { config, deps } = await wireReconciler(env, { cloudWatch: counted, ...reconcilerKube(harness.info) });

    const summary = await reconcile(config.settings, deps);
    expect(summary).toMatchObject({ podsEvaluated: POD_COUNT, metricQueries: 3 * POD_COUNT, podsWithoutMetrics: POD_COUNT - 4, errors: [] });
    expect(getMetricDataCalls).toBe(Math.ceil((3 * POD_COUNT) / 500));
    expect(summary.deletionCostsWritten).toBe(4);

    const pods = await podsByName(core, namespace);
    const costs = Object.fromEntries([...sampled.keys()].map((name) => [name, deletionCost(pods.get(name) as V1Pod)]));
    expect(costs).toEqual({ [pod(0)]: '500', [pod(166)]: '650', [pod(500)]: '700', [pod(999)]: '900' });

    const again = await reconcile(config.settings, deps);
    expect(getMetricDataCalls).toBe(2 * 6);
    expect(again).toMatchObject({ deletionCostsWritten: 0, skippedUnchanged: POD_COUNT });
  });
});
