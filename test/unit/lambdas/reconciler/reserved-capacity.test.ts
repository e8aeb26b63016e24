import { describe, expect, it } from 'vitest';
import { reservedCapacityOutcome } from '../../../../lambdas/reconciler/reserved-capacity';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from '../scheduling/kube-objects';

const BLOCK = { 'karpenter.sh/capacity-type': 'reserved', 'karpenter.k8s.aws/capacity-reservation-type': 'capacity-block', 'node.kubernetes.io/instance-type': 'p5.48xlarge' };
const NODE_GROUP_BLOCK = { 'eks.amazonaws.com/capacityType': 'CAPACITY_BLOCK', 'node.kubernetes.io/instance-type': 'p5.48xlarge' };
const ON_DEMAND = { 'karpenter.sh/capacity-type': 'on-demand', 'node.kubernetes.io/instance-type': 'p5.48xlarge' };
const PRICES = { pricesUsd: { 'p5.48xlarge': 55.04 }, reservationPricesUsd: { default: {}, 'capacity-block': { 'p5.48xlarge': 32 } } };

function cluster() {
  const nodes = [
    gpuNode('karpenter-block', { gpus: 8, model: 'H100', labels: BLOCK }),
    gpuNode('node-group-block', { gpus: 8, model: 'H100', labels: NODE_GROUP_BLOCK }),
    gpuNode('on-demand', { gpus: 8, model: 'H100', labels: ON_DEMAND }),
  ];
  const pods = [gpuPod('a', { gpus: 6, nodeName: 'karpenter-block' }), gpuPod('b', { gpus: 8, nodeName: 'node-group-block' }), gpuPod('c', { gpus: 1, nodeName: 'on-demand' })];
  return snapshotFromKubernetes(nodes, pods, [], []);
}

describe('reservedCapacityOutcome', () => {
  it('counts the GPUs of nodes Karpenter or an EKS node group marks reserved, and prices the idle ones at the reservation rate', () => {
    const reserved = reservedCapacityOutcome(cluster(), PRICES, 0);
    expect(reserved.total).toEqual({ nodes: 2, allocatable: 16, idle: 2, idleHourlyCostUsd: 8 });
    expect(reserved.byModel).toEqual({ H100: { nodes: 2, allocatable: 16, idle: 2, idleHourlyCostUsd: 8 } });
    expect(reserved.idleWhilePodsWaitForCapacity).toBe(0);
    expect(reserved.unpriced).toBe(0);
  });

  it('reports the idle reserved GPUs as idle while pods wait for capacity only when some do', () => {
    expect(reservedCapacityOutcome(cluster(), PRICES, 3).idleWhilePodsWaitForCapacity).toBe(2);
  });

  it('falls back to the table without a reservation rate, and counts nodes neither knows as unpriced', () => {
    expect(reservedCapacityOutcome(cluster(), { pricesUsd: PRICES.pricesUsd }, 0).total.idleHourlyCostUsd).toBe(13.76);
    expect(reservedCapacityOutcome(cluster(), { pricesUsd: {} }, 0)).toMatchObject({ unpriced: 2, total: { idleHourlyCostUsd: 0 } });
  });
});
