import { describe, expect, it } from 'vitest';
import { simulate } from '../../../simulator/simulate';
import { gpuPod } from '../lambdas/scheduling/kube-objects';
import { topologyNode } from '../lambdas/scheduling/topology-nodes';

// npm run simulate reads Node JSON as the extender does, EKS network-topology labels included.
describe('simulate on nodes with EKS network-topology labels', () => {
  const nodes = [
    ...[0, 1].map((i) => topologyNode(`small-${i}`, ['t', 'm1', 'b-small'])),
    ...[0, 1, 2, 3].map((i) => topologyNode(`fit-${i}`, ['t', 'm1', 'b-fit'])),
    ...[0, 1, 2, 3, 4, 5].map((i) => topologyNode(`big-${i}`, ['t', 'm2', 'b-big'])),
  ];
  const forGpuScheduler = (pod: ReturnType<typeof gpuPod>) => ({ ...pod, spec: { ...pod.spec, schedulerName: 'gpu-scheduler' } });
  const job = [0, 1, 2, 3].map((i) =>
    forGpuScheduler(gpuPod(`rank-${i}`, { gpus: 8, namespace: 'ml', labels: { job: 'llm' }, annotations: { 'gpu.nvidia.com/peer-selector': 'job=llm', 'gpu.nvidia.com/group-size': '4' } })),
  );

  it('places a 4-node job whole in the one bottom block of 4 free nodes', () => {
    const result = simulate(nodes, job);
    expect(result.unschedulable).toEqual([]);
    expect(result.placed.map((p) => p.node).sort()).toEqual(['fit-0', 'fit-1', 'fit-2', 'fit-3']);
  });

  it('without the group size the first rank has no block to aim for and the job may straddle blocks', () => {
    const plain = job.map((p) => ({ ...p, metadata: { ...p.metadata, annotations: { 'gpu.nvidia.com/peer-selector': 'job=llm' } } }));
    const placed = simulate(nodes, plain).placed.map((p) => p.node);
    // The first rank lands on whichever empty node the extender's stable name order puts first (here in the 2-node block): the job cannot stay in one block.
    expect(placed[0]).toBe('small-1');
    expect(new Set(placed.map((n) => n.replace(/-\d+$/, ''))).size).toBeGreaterThan(1);
  });
});
