import { describe, expect, it } from 'vitest';
import { namespaceCostOutcome } from '../../../../lambdas/reconciler/namespace-cost';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from '../scheduling/kube-objects';

const PRICES = { pricesUsd: { 'p4d.24xlarge': 16, 'g5.12xlarge': 4 } };
const typed = (type: string) => ({ 'node.kubernetes.io/instance-type': type });

function cluster() {
  const nodes = [gpuNode('a100', { gpus: 8, labels: typed('p4d.24xlarge') }), gpuNode('a10g', { gpus: 4, model: 'A10G', labels: typed('g5.12xlarge') })];
  const pods = [
    gpuPod('t1', { gpus: 4, nodeName: 'a100', namespace: 'training' }),
    gpuPod('t2', { gpus: 1, nodeName: 'a10g', namespace: 'training' }),
    gpuPod('r1', { gpus: 2, nodeName: 'a100', namespace: 'research' }),
    gpuPod('n1', { gpus: 1, nodeName: 'a10g', namespace: 'notebooks' }),
    gpuPod('cpu', { gpus: 0, nodeName: 'a100', namespace: 'web' }),
  ];
  return snapshotFromKubernetes(nodes, pods, [], []);
}

describe('namespaceCostOutcome', () => {
  it('charges each namespace its GPUs at its nodes\' price per GPU, idle GPUs to no one', () => {
    const cost = namespaceCostOutcome(cluster(), PRICES, 10);
    expect(cost.namespaces).toEqual([
      { namespace: 'training', gpus: 5, hourlyCostUsd: 4 * 2 + 1 * 1 },
      { namespace: 'research', gpus: 2, hourlyCostUsd: 4 },
      { namespace: 'notebooks', gpus: 1, hourlyCostUsd: 1 },
    ]);
    expect(cost.namespaceCount).toBe(3);
    // 2 idle A100s at $2, 2 idle A10Gs at $1: with the teams' $14, the nodes' $20.
    expect(cost.idleHourlyCostUsd).toBe(6);
  });

  it('names the top N by GPUs and sums the rest as (other); N = 0 names none', () => {
    expect(namespaceCostOutcome(cluster(), PRICES, 1).namespaces).toEqual([
      { namespace: 'training', gpus: 5, hourlyCostUsd: 9 },
      { namespace: '(other)', gpus: 3, hourlyCostUsd: 5 },
    ]);
    expect(namespaceCostOutcome(cluster(), PRICES, 0).namespaces).toEqual([{ namespace: '(other)', gpus: 8, hourlyCostUsd: 14 }]);
  });

  it('counts GPUs of unpriced nodes and no dollars for them', () => {
    const cost = namespaceCostOutcome(cluster(), { pricesUsd: { 'p4d.24xlarge': 16 } }, 10);
    expect(cost.namespaces.find((n) => n.namespace === 'notebooks')).toEqual({ namespace: 'notebooks', gpus: 1, hourlyCostUsd: 0 });
    expect(cost.idleHourlyCostUsd).toBe(4);
  });
});
