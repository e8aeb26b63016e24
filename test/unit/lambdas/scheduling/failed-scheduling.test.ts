import { describe, expect, it } from 'vitest';
import { failedSchedulingCodes, failedSchedulingLines, failedSchedulingReasons, reasonSource, schedulingReasonCode } from '../../../../lambdas/scheduling/failed-scheduling';

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

describe('failedSchedulingReasons', () => {
  it('gives each reason with its node count', () => {
    const message = '0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint {a: b}. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.';
    expect(failedSchedulingReasons(message)).toEqual([
      { nodes: 2, text: 'Insufficient nvidia.com/gpu' },
      { nodes: 3, text: 'node(s) had untolerated taint {a: b}' },
    ]);
  });

  it('keeps a message of another form as one reason', () => {
    expect(failedSchedulingReasons('no nodes available to schedule pods')).toEqual([{ nodes: 0, text: 'no nodes available to schedule pods' }]);
  });
});

describe('schedulingReasonCode', () => {
  it.each([
    ['Not enough GPUs: requested 2, free 1', 'InsufficientGpus'],
    ['Insufficient nvidia.com/gpu', 'InsufficientGpus'],
    ['Not enough GPU memory: pod wants 40960 MiB per GPU, node has 24576 MiB', 'InsufficientGpuMemory'],
    ['GPU model mismatch: pod wants H100, node has A100', 'GpuModelMismatch'],
    ['GPUs are shared on this node (time-slicing)', 'GpuSharingMismatch'],
    ['GpuModelMismatch', 'GpuModelMismatch'],
    ['Insufficient cpu', 'InsufficientCpu'],
    ['node(s) had untolerated taint {nvidia.com/gpu: }', 'UntoleratedTaint'],
    ["node(s) didn't match Pod's node affinity/selector", 'NodeAffinity'],
    ["node(s) didn't match pod anti-affinity rules", 'PodAffinity'],
    ['node(s) were unschedulable', 'NodeUnschedulable'],
    ["node(s) didn't match pod topology spread constraints", 'TopologySpread'],
    ['no nodes available to schedule pods', 'NoNodes'],
    ['something new in kube-scheduler 1.40', 'Other'],
  ])('%s → %s', (text, code) => {
    expect(schedulingReasonCode(text)).toBe(code);
  });

  it('gives each code of a message once', () => {
    const message = '0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 Not enough GPUs: requested 4, free 2.';
    expect(failedSchedulingCodes(message)).toEqual(['InsufficientGpus']);
  });
});
