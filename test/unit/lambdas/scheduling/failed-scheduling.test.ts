import { describe, expect, it } from 'vitest';
import { failedSchedulingCodes, failedSchedulingLines, failedSchedulingReasons, reasonSource, schedulingReasonCode } from '../../../../lambdas/scheduling/failed-scheduling';
import { REJECTION_REASONS, rejectionMessage } from '../../../../lambdas/scheduling/reasons';

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
    ['GPU sharing mismatch: GPUs are shared on this node (time-slicing, 4 replicas per GPU, 4 physical): …', 'extender'],
    ['Node reports impossible GPU data: allocatable nvidia.com/gpu="2147483648" is outside 0..65536', 'extender'],
    ["Node is not in the extender's cluster cache: new node, or outside the cache's label selector", 'extender'],
    // A reply over the ALB size budget carries bare reason codes.
    ['GpuModelMismatch', 'extender'],
    ['NodeNotFound', 'extender'],
    ['Insufficient nvidia.com/gpu', 'kube-scheduler'],
    // NodeResourcesFit's words, which the simulator's copy of it shares: kube-scheduler's.
    ['Too many pods', 'kube-scheduler'],
    ["node(s) didn't match Pod's node affinity/selector", 'kube-scheduler'],
    ['node(s) had untolerated taint(s)', 'kube-scheduler'],
    ['something new in kube-scheduler 1.40', 'kube-scheduler'],
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
  it('reads every code back from a message built for it, with a detail or bare', () => {
    for (const code of REJECTION_REASONS) {
      expect(schedulingReasonCode(rejectionMessage(code, 'requested 2, free 1'))).toBe(code);
      expect(schedulingReasonCode(rejectionMessage(code))).toBe(code);
      expect(schedulingReasonCode(code)).toBe(code);
    }
  });

  // The reasons as kube-scheduler v1.35 writes them (pkg/scheduler/framework/plugins/…).
  it.each([
    ['Insufficient nvidia.com/gpu', 'InsufficientGpus'],
    ['Insufficient nvidia.com/gpu.shared', 'InsufficientGpus'],
    ['Insufficient nvidia.com/mig-1g.5gb', 'InsufficientGpus'],
    ['Insufficient cpu', 'InsufficientCpu'],
    ['Insufficient memory', 'InsufficientMemory'],
    ['Too many pods', 'TooManyPods'],
    ['node(s) had untolerated taint(s)', 'UntoleratedTaint'],
    ["node(s) had taints that the pod didn't tolerate", 'UntoleratedTaint'],
    ['node(s) had untolerated taint {nvidia.com/gpu: }', 'UntoleratedTaint'],
    ["node(s) didn't match Pod's node affinity/selector", 'NodeAffinity'],
    ["node(s) didn't match scheduler-enforced node affinity", 'NodeAffinity'],
    ["node(s) didn't match pod affinity rules", 'PodAffinity'],
    ["node(s) didn't match pod anti-affinity rules", 'PodAffinity'],
    ["node(s) didn't satisfy existing pods anti-affinity rules", 'PodAffinity'],
    ['node(s) were unschedulable', 'NodeUnschedulable'],
    ["node(s) didn't match pod topology spread constraints", 'TopologySpread'],
    ["node(s) didn't match pod topology spread constraints (missing required label)", 'TopologySpread'],
    ["node(s) didn't find available persistent volumes to bind", 'Volume'],
    ["node(s) didn't match PersistentVolume's node affinity", 'Volume'],
    ['node(s) had no available volume zone', 'Volume'],
    ['pod has unbound immediate PersistentVolumeClaims', 'Volume'],
    ['persistentvolumeclaim "data" not found', 'Volume'],
    ['node(s) exceed max volume count', 'Volume'],
    ['no nodes available to schedule pods', 'NoNodes'],
    ['failed filter with extender at URL http://10.0.0.1/filter, code 503', 'ExtenderError'],
    ['Post "https://gpu-extender.example/filter": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', 'ExtenderError'],
  ])('%s → %s', (text, code) => {
    expect(schedulingReasonCode(text)).toBe(code);
  });

  it.each([
    'something new in kube-scheduler 1.40',
    // Near misses of known texts are not guessed at.
    'Insufficient ephemeral-storage',
    "node(s) didn't match the requested node name",
    'node(s) were unschedulable today',
    'GPUs are shared on this node',
    '',
  ])('%j → Other', (text) => {
    expect(schedulingReasonCode(text)).toBe('Other');
  });

  it('gives each code of a message once', () => {
    const message = '0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 Not enough GPUs: requested 4, free 2.';
    expect(failedSchedulingCodes(message)).toEqual(['InsufficientGpus']);
  });

  it('classifies a whole kube-scheduler message, its reasons and ours', () => {
    const message =
      "0/20 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) had untolerated taint(s), 4 node(s) didn't match Pod's node affinity/selector, " +
      '5 GPU model mismatch: pod wants H100, node has A100, 6 GPU sharing mismatch: pod asks for nvidia.com/gpu.shared, node advertises nvidia.com/gpu. ' +
      'preemption: 0/20 nodes are available: 20 Preemption is not helpful for scheduling.';
    expect(failedSchedulingCodes(message)).toEqual(['InsufficientGpus', 'UntoleratedTaint', 'NodeAffinity', 'GpuModelMismatch', 'GpuSharingMismatch']);
  });
});
