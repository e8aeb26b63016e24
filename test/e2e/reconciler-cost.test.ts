// Idle reserved GPUs and cost per team, end to end: the real reconciler in a
// Lambda worker, as its RBAC identity, against the real kube-apiserver. A
// known cluster (an A100 node in an On-Demand Capacity Reservation as
// Karpenter labels it, an on-demand A10G node, GPU pods of two teams) must
// come out as the right numbers in the EMF lines the function writes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eHarness } from './support/e2e-context';
import { createGpuNode, deleteGpuNode, describeInstanceType, seedGpuLabels, type GpuNode } from '../../local/nodes/gpu-nodes';
import { markPodRunning } from '../../local/nodes/pod-status';
import type { LocalLambda } from '../../local/start/local-lambda';
import { waitFor } from '../../local/common/wait';
import { emfByDimension, emfValues } from './emf-records';
import { PAUSE_IMAGE, reconcilerEnv, startReconcilerLambda } from './reconciler-fixtures';
import { GPU_RESOURCE, KARPENTER_CAPACITY_LABEL } from '../../lambdas/scheduling/keys';
import { DEFAULT_GPU_PRICES_USD } from '../../lambdas/reconciler/gpu-prices';
import { OTHER_NAMESPACES } from '../../lambdas/observability/metric-catalog';

const harness = e2eHarness();
const { core } = harness;
const logDir = mkdtempSync(join(tmpdir(), 'reconciler-cost-'));
const records: Record<string, unknown>[] = [];
// No scheduler of this name runs in the harness: the pods are bound directly.
const SCHEDULER = 'cost-e2e-scheduler';
/** What the test says an hour of the reserved p4d.24xlarge costs (RESERVATION_PRICES_USD), $2 a GPU. */
const ODCR_PRICE = 16;

const namespaces: string[] = [];
const nodes: GpuNode[] = [];
let reconciler: LocalLambda;

const values = (metric: string): unknown[] => emfValues(records, metric).map((v) => v.value);
const byDimension = (metric: string, key: string, filter: Record<string, string> = {}): Record<string, unknown> => emfByDimension(records, metric, key, filter);

function gpuPod(name: string, gpus: number, nodeName: string): V1Pod {
  return {
    metadata: { name },
    spec: { nodeName, schedulerName: SCHEDULER, containers: [{ name: 'main', image: PAUSE_IMAGE, resources: { limits: { [GPU_RESOURCE]: String(gpus) } } }] },
  };
}

beforeAll(async () => {
  const training = await harness.createNamespace('training');
  const research = await harness.createNamespace('research');
  namespaces.push(training, research);
  const selector = { 'reconciler-e2e': training };
  const node = async (instanceType: string, labels: Record<string, string>): Promise<GpuNode> => {
    const facts = await describeInstanceType(harness.nodeClients.ec2, instanceType);
    const made = await createGpuNode(harness.nodeClients, { instanceType, labels: { ...seedGpuLabels(facts), ...selector, ...labels } });
    nodes.push(made);
    return made;
  };
  const reserved = await node('p4d.24xlarge', {
    [KARPENTER_CAPACITY_LABEL.capacityType]: 'reserved',
    [KARPENTER_CAPACITY_LABEL.reservationType]: 'default',
    [KARPENTER_CAPACITY_LABEL.reservationId]: 'cr-0dc7000000000077',
  });
  const onDemand = await node('g5.12xlarge', { [KARPENTER_CAPACITY_LABEL.capacityType]: 'on-demand' });

  // training: 4 reserved A100s and 1 on-demand A10G; research: 2 reserved A100s. 2 A100s and 3 A10Gs idle.
  for (const [namespace, name, gpus, nodeName] of [
    [training, 'trainer', 4, reserved.name],
    [training, 'eval', 1, onDemand.name],
    [research, 'notebook', 2, reserved.name],
  ] as const) {
    await core.createNamespacedPod({ namespace, body: gpuPod(name, gpus, nodeName) });
    await markPodRunning(core, { namespace, name });
  }

  reconciler = await startReconcilerLambda(harness.info, {
    functionName: 'reconciler-cost',
    environment: reconcilerEnv(harness.info, training, {
      POD_NAMESPACES: namespaces.join(','),
      GPU_SCHEDULER_NAME: SCHEDULER,
      NODE_UTILIZATION_ENABLED: 'false',
      COST_TOP_NAMESPACES: '1',
      RESERVATION_PRICES_USD: `default/p4d.24xlarge=${ODCR_PRICE}`,
    }),
    logDir,
    onLogRecord: (record) => records.push(record),
  });
});

afterAll(async () => {
  await reconciler?.stop();
  for (const namespace of namespaces) await core.deleteNamespace({ name: namespace }).catch(() => undefined);
  for (const node of nodes) await deleteGpuNode(harness.nodeClients, node).catch(() => undefined);
  rmSync(logDir, { recursive: true, force: true });
});

describe('reserved GPUs and cost per namespace end to end', () => {
  it('publishes the idle reserved GPUs and their cost, and each team its GPUs and dollars, idle GPUs nobody\'s', async () => {
    await reconciler.invoke({ id: 'cost-1', time: new Date().toISOString() });
    await waitFor('the EMF line with the idle GPUs\' cost', async () => (values('GpusIdleHourlyCostUsd').length > 0 ? true : undefined));
    const [training = ''] = namespaces;
    const a10gPerGpu = (DEFAULT_GPU_PRICES_USD['g5.12xlarge'] ?? Number.NaN) / 4;
    const round3 = (value: number): number => Math.round(value * 1000) / 1000;

    // Only the A100 node is reserved: 8 GPUs, 2 idle, at the reservation's $2 a GPU.
    expect(byDimension('ReservedGpus', 'GpuModel', { State: 'Allocatable' })).toEqual({ A100: 8 });
    expect(byDimension('ReservedGpus', 'GpuModel', { State: 'Idle' })).toEqual({ A100: 2 });
    expect(byDimension('ReservedGpusIdleHourlyCostUsd', 'GpuModel')).toEqual({ A100: 2 * (ODCR_PRICE / 8) });
    // No GPU pod waits for new capacity.
    expect(values('ReservedGpusIdleWhilePodsWaitForCapacity')).toEqual([0]);

    // Top 1 by GPUs: training (5); research summed into (other).
    expect(byDimension('NamespaceGpusAllocated', 'Namespace')).toEqual({ [training]: 5, [OTHER_NAMESPACES]: 2 });
    expect(byDimension('NamespaceGpuHourlyCostUsd', 'Namespace')).toEqual({
      [training]: round3(4 * (ODCR_PRICE / 8) + a10gPerGpu),
      [OTHER_NAMESPACES]: 2 * (ODCR_PRICE / 8),
    });
    expect(values('GpusIdleHourlyCostUsd')).toEqual([round3(2 * (ODCR_PRICE / 8) + 3 * a10gPerGpu)]);
    // The whole bill adds up: the teams' dollars and the idle ones are the nodes' prices.
    expect(values('GpuNodesHourlyCostUsd')).toEqual([ODCR_PRICE + (DEFAULT_GPU_PRICES_USD['g5.12xlarge'] ?? Number.NaN)]);
    expect(values('ReconcilerErrors')).toEqual([]);
  });
});
