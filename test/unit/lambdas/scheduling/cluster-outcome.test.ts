import { describe, expect, it } from 'vitest';
import { clusterOutcome } from '../../../../lambdas/scheduling/cluster-outcome';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from './kube-objects';

describe('clusterOutcome', () => {
  it('counts allocatable, allocated, idle and stranded GPUs, overall and per model', () => {
    // Typical shapes from the bound pods: one 4-GPU pod, two 1-GPU pods. Each node keeps 3 free GPUs: no 4-GPU pod
    // fits there, so a third of the free GPU (the 4-GPU shape's weight) is stranded: 1 GPU per node.
    const snapshot = snapshotFromKubernetes(
      [gpuNode('a', { gpus: 8, model: 'A100' }), gpuNode('b', { gpus: 4, model: 'NVIDIA-T4' }), gpuNode('cpu', { gpus: 0, model: '' })],
      [gpuPod('big', { gpus: 4, nodeName: 'a' }), gpuPod('one-a', { gpus: 1, nodeName: 'a' }), gpuPod('one-b', { gpus: 1, nodeName: 'b' }), gpuPod('web', { nodeName: 'cpu' })],
    );
    const outcome = clusterOutcome(snapshot);
    expect(outcome).toMatchObject({ nodes: 2, allocatable: 12, allocated: 6, idle: 6, stranded: 2 });
    expect(outcome.byModel).toEqual({
      A100: { nodes: 1, allocatable: 8, allocated: 5, idle: 3, stranded: 1 },
      T4: { nodes: 1, allocatable: 4, allocated: 1, idle: 3, stranded: 1 },
    });
    expect(outcome.shapes.map((s) => [s.gpuCount, s.weight])).toEqual(expect.arrayContaining([[4, 1 / 3], [1, 2 / 3]]));
  });

  it('an empty cluster strands nothing against the prior of 1, 2, 4 and 8 GPUs; a fully used one has nothing idle', () => {
    const empty = clusterOutcome(snapshotFromKubernetes([gpuNode('a', { gpus: 8 })]));
    expect(empty).toMatchObject({ allocatable: 8, allocated: 0, idle: 8, stranded: 0 });
    const full = clusterOutcome(snapshotFromKubernetes([gpuNode('a', { gpus: 2 })], [gpuPod('p', { gpus: 2, nodeName: 'a' })]));
    expect(full).toMatchObject({ allocatable: 2, allocated: 2, idle: 0, stranded: 0 });
  });

  it('leaves out a node reporting impossible GPU data, and names nodes without a model "unknown"', () => {
    const bad = gpuNode('bad', { gpus: 8 });
    const outcome = clusterOutcome(
      snapshotFromKubernetes([{ ...bad, status: { allocatable: { ...bad.status?.allocatable, 'nvidia.com/gpu': '2147483648' } } }, gpuNode('anon', { gpus: 4, model: '' })]),
    );
    expect(outcome).toMatchObject({ nodes: 1, allocatable: 4 });
    expect(Object.keys(outcome.byModel)).toEqual(['unknown']);
  });
});
