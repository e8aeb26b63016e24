import { describe, expect, it } from 'vitest';
import { failedSchedulingLines, reasonSource } from '../../../../local/start/failed-scheduling';

describe('failedSchedulingLines', () => {
  it('puts each reason of the scheduler message on its own line, saying who gave it', () => {
    // What kube-scheduler 1.35 writes with ignoredByScheduler: false: its own
    // GPU count rejects the busy H100 node, the extender the other models.
    const message =
      '0/12 nodes are available: 1 Insufficient nvidia.com/gpu, 3 GPU model mismatch: pod wants H100, node has A100. ' +
      'no new claims to deallocate, preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.';
    expect(failedSchedulingLines(message)).toEqual([
      '0/12 nodes are available:',
      '  1 × Insufficient nvidia.com/gpu  (kube-scheduler)',
      '  3 × GPU model mismatch: pod wants H100, node has A100  (extender)',
      'preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.',
    ]);
  });

  it('leaves other messages alone', () => {
    expect(failedSchedulingLines('something else')).toEqual(['something else']);
  });
});

describe('reasonSource', () => {
  it.each([
    ['Not enough GPUs: requested 2, free 1', 'extender'],
    ['Not enough GPU memory: pod wants 40960 MiB per GPU, node has 24576 MiB', 'extender'],
    ['GPUs are shared on this node (time-slicing, 4 replicas per GPU, 4 physical): …', 'extender'],
    ['Node reports impossible GPU data: allocatable nvidia.com/gpu="2147483648" is outside 0..65536', 'extender'],
    ["Node is not in the extender's cluster cache (new node, or outside the cache's label selector)", 'extender'],
    // A reply over the ALB size budget carries bare reason codes.
    ['GpuModelMismatch', 'extender'],
    ['NodeNotFound', 'extender'],
    ['Insufficient nvidia.com/gpu', 'kube-scheduler'],
    ["node(s) didn't match Pod's node affinity/selector", 'kube-scheduler'],
    ['node(s) had untolerated taint {nvidia.com/gpu: }', 'kube-scheduler'],
  ])('%s → %s', (reason, source) => {
    expect(reasonSource(reason)).toBe(source);
  });
});
