// The reconciler's cluster outcome metrics, end to end: the real reconciler
// module in a Lambda worker, as the reconciler's RBAC identity, against the
// real kube-apiserver and moto. A known cluster (two GPU nodes, bound GPU
// pods, GPU pods pending with the scheduler's PodScheduled=False messages,
// opted-in ReplicaSet pods with and without metrics) must come out as the
// right numbers in the EMF lines the function writes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import { markPodRunning } from '../../local/nodes/pod-status';
import type { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { emfByDimension, emfValues } from './emf-records';
import { cloudWatch, createReadyReplicaSet, PAUSE_IMAGE, publishPodMetrics, reconcilerEnv, startReconcilerLambda } from './reconciler-fixtures';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

const harness = e2eHarness();
const { core, apps } = harness;
const cw = cloudWatch(harness.info);
const STRATEGIC_MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const logDir = mkdtempSync(join(tmpdir(), 'reconciler-outcome-'));
const records: Record<string, unknown>[] = [];
// No scheduler of this name runs in the harness, so the pending pods stay pending.
const SCHEDULER = 'outcome-e2e-scheduler';

let namespace = '';
const nodes: GpuNode[] = [];
let reconciler: LocalLambda;

const emf = (metric: string) => emfValues(records, metric);
const values = (metric: string): unknown[] => emf(metric).map((v) => v.value);
const byDimension = (metric: string, key: string, filter: Record<string, string> = {}): Record<string, unknown> => emfByDimension(records, metric, key, filter);

function gpuPod(name: string, gpus: number, spec: { nodeName?: string; schedulerName?: string }): V1Pod {
  return {
    metadata: { name, labels: { app: 'outcome' } },
    spec: {
      ...spec,
      containers: [{ name: 'main', image: PAUSE_IMAGE, resources: gpus > 0 ? { limits: { [GPU_RESOURCE]: String(gpus) } } : {} }],
    },
  };
}

/** What kube-scheduler writes on a pod it could not place (the FailedScheduling event carries the same text). */
async function markUnschedulable(name: string, message: string): Promise<void> {
  await core.patchNamespacedPodStatus({
    namespace,
    name,
    body: { status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastTransitionTime: new Date().toISOString() }] } },
  }, STRATEGIC_MERGE_PATCH);
}

let pendingCreatedAt = 0;

beforeAll(async () => {
  namespace = await harness.createNamespace('reconciler-outcome');
  const labels = { 'reconciler-e2e': namespace };
  for (const instanceType of ['p4d.24xlarge', 'g5.12xlarge']) {
    const facts = await describeInstanceType(harness.nodeClients.ec2, instanceType);
    nodes.push(await createGpuNode(harness.nodeClients, { instanceType, labels: { ...seedGpuLabels(facts), ...labels } }));
  }
  const [a100, a10g] = nodes as [GpuNode, GpuNode];

  // Bound GPU pods: 6 + 1 of the 8 A100s, 3 of the 4 A10Gs.
  for (const [name, gpus, nodeName] of [['big', 6, a100.name], ['one', 1, a100.name], ['three', 3, a10g.name]] as const) {
    await core.createNamespacedPod({ namespace, body: gpuPod(name, gpus, { nodeName, schedulerName: SCHEDULER }) });
    await markPodRunning(core, { namespace, name });
  }

  // Waiting for the GPU scheduler: three GPU pods (two already tried by it); not counted: a CPU pod, a GPU pod of another scheduler.
  pendingCreatedAt = Date.now();
  for (const [name, gpus, schedulerName] of [['wait-a', 2, SCHEDULER], ['wait-b', 4, SCHEDULER], ['wait-c', 1, SCHEDULER], ['cpu', 0, SCHEDULER], ['elsewhere', 2, 'another-scheduler']] as const) {
    await core.createNamespacedPod({ namespace, body: gpuPod(name, gpus, { schedulerName }) });
  }
  await markUnschedulable('wait-a', '0/2 nodes are available: 2 Insufficient nvidia.com/gpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.');
  await markUnschedulable('wait-b', '0/2 nodes are available: 1 GPU model mismatch: pod wants H100, node has A10G, 1 node(s) had untolerated taint {dedicated: training}.');

  // Opted-in pods (no GPUs) for the deletion-cost ranges: one busy (120 requests × 5 = 600), one silent (no signal, 0).
  const [busy, silent] = (await createReadyReplicaSet({ core, apps }, namespace, 'serving', 2, a100.name, new Date(Date.now() - 3_600_000))) as [string, string];
  expect(silent).toBeDefined();
  await publishPodMetrics(cw, namespace, new Map([[busy, { activeRequests: 120 }]]));

  reconciler = await startReconcilerLambda(harness.info, {
    functionName: 'reconciler-outcome',
    environment: reconcilerEnv(harness.info, namespace, { GPU_SCHEDULER_NAME: SCHEDULER, NODE_UTILIZATION_ENABLED: 'false' }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
});

afterAll(async () => {
  await reconciler?.stop();
  await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  for (const node of nodes) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
  rmSync(logDir, { recursive: true, force: true });
});

describe('reconciler outcome metrics end to end', () => {
  it('publishes the GPUs, the pending GPU pods and their reasons, and the deletion-cost ranges of a known cluster', async () => {
    await reconciler.invoke({ id: 'outcome-1', time: new Date().toISOString() });
    const invokedAt = Date.now();

    // The undimensioned metrics go out in one EMF line when the invocation ends.
    await waitFor('the EMF line with the GPU totals', async () => (values('GpusAllocatable').length > 0 ? true : undefined));
    expect([values('GpusAllocatable'), values('GpusAllocated'), values('GpusIdle')]).toEqual([[12], [10], [2]]);
    // Stranded (FGD): the bound pods' shapes are 6, 1 and 3 GPUs, equally
    // common; the one free GPU of each node is of use to the 1-GPU shape
    // only, so 2/3 of it is fragment: 0.67 per model, 1.33 in all.
    expect(values('GpusStranded')).toEqual([1.33]);
    expect(byDimension('GpusByModel', 'GpuModel', { State: 'Stranded' })).toEqual({ A100: 0.67, A10G: 0.67 });
    expect(byDimension('GpusByModel', 'GpuModel', { State: 'Allocatable' })).toEqual({ A100: 8, A10G: 4 });
    expect(byDimension('GpusByModel', 'GpuModel', { State: 'Allocated' })).toEqual({ A100: 7, A10G: 3 });
    expect(byDimension('GpusByModel', 'GpuModel', { State: 'Idle' })).toEqual({ A100: 1, A10G: 1 });

    expect(values('GpuPodsPending')).toEqual([3]);
    const [age] = values('OldestPendingGpuPodAge') as [number];
    // Creation timestamps have whole seconds: between the creation and the run, give or take one.
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual(Math.ceil((invokedAt - pendingCreatedAt) / 1000) + 1);
    expect(byDimension('GpuPodsPendingByReason', 'Reason')).toEqual({ InsufficientGpus: 1, GpuModelMismatch: 1, UntoleratedTaint: 1 });

    expect(byDimension('DeletionCosts', 'Range')).toEqual({ Negative: 0, Zero: 1, '1-99': 0, '100-499': 0, '500-999': 1, '1000+': 0 });
    expect(values('ReconcilerErrors')).toEqual([]);
  });
});
