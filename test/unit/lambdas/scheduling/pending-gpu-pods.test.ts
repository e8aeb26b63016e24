import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { pendingGpuPods, unschedulableMessage } from '../../../../lambdas/scheduling/pending-gpu-pods';
import { gpuPod } from './kube-objects';

const NOW = Date.parse('2026-12-01T10:00:00Z');

function pending(name: string, options: { ageSeconds?: number; gpus?: number; scheduler?: string; message?: string; gates?: string[] } = {}): V1Pod {
  const pod = gpuPod(name, { gpus: options.gpus ?? 1 }) as V1Pod;
  return {
    ...pod,
    metadata: { ...pod.metadata, creationTimestamp: new Date(NOW - (options.ageSeconds ?? 10) * 1000) },
    spec: {
      ...pod.spec,
      containers: pod.spec?.containers ?? [],
      schedulerName: options.scheduler ?? 'gpu-scheduler',
      ...(options.gates && { schedulingGates: options.gates.map((name) => ({ name })) }),
    },
    status: {
      phase: 'Pending',
      ...(options.message ? { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: options.message }] } : {}),
    },
  };
}

const msg = (...reasons: string[]): string => `0/9 nodes are available: ${reasons.map((r) => `1 ${r}`).join(', ')}.`;

describe('pendingGpuPods', () => {
  it('counts GPU pods of the GPU scheduler only, with the oldest age', () => {
    const result = pendingGpuPods(
      [pending('a', { ageSeconds: 300 }), pending('b', { ageSeconds: 20 }), pending('cpu', { gpus: 0, ageSeconds: 999 }), pending('other', { scheduler: 'default-scheduler', ageSeconds: 999 })],
      'gpu-scheduler',
      NOW,
    );
    expect(result).toEqual({ count: 2, gated: 0, oldestSeconds: 300, reasons: [] });
  });

  it('counts pods held by scheduling gates (Kueue) apart: not pending for a node, not in the oldest age or the reasons', () => {
    const schedulingGated = 'SchedulingGated: 0/9 nodes are available: 1 Insufficient nvidia.com/gpu.';
    const result = pendingGpuPods(
      [
        pending('ungated', { ageSeconds: 30, message: msg('Insufficient nvidia.com/gpu') }),
        pending('topology', { ageSeconds: 900, gates: ['kueue.x-k8s.io/topology'], message: schedulingGated }),
        pending('admission', { ageSeconds: 600, gates: ['kueue.x-k8s.io/admission'] }),
        pending('cpu-gated', { gpus: 0, gates: ['kueue.x-k8s.io/admission'] }),
      ],
      'gpu-scheduler',
      NOW,
    );
    expect(result).toEqual({ count: 1, gated: 2, oldestSeconds: 30, reasons: [{ code: 'InsufficientGpus', pods: 1 }] });
  });

  it('reports nothing pending as zero pods and no age', () => {
    expect(pendingGpuPods([], 'gpu-scheduler', NOW)).toEqual({ count: 0, gated: 0, oldestSeconds: undefined, reasons: [] });
  });

  it('counts each pod once per reason code, most frequent first, the rest as Other', () => {
    const pods = [
      pending('a', { message: msg('Insufficient nvidia.com/gpu', 'Not enough GPUs: requested 4, free 2', 'GPU model mismatch: pod wants H100, node has A100') }),
      pending('b', { message: msg('Insufficient nvidia.com/gpu', 'node(s) had untolerated taint {x: }') }),
      pending('c', { message: msg('Insufficient cpu', 'node(s) were unschedulable', 'something unheard of') }),
    ];
    expect(pendingGpuPods(pods, 'gpu-scheduler', NOW, 2).reasons).toEqual([
      { code: 'InsufficientGpus', pods: 2 },
      { code: 'GpuModelMismatch', pods: 1 },
      // InsufficientCpu, NodeUnschedulable and UntoleratedTaint beyond the limit, and the unknown reason.
      { code: 'Other', pods: 4 },
    ]);
  });
});

describe('unschedulableMessage', () => {
  it("reads the PodScheduled=False condition's message", () => {
    expect(unschedulableMessage(pending('a', { message: 'no nodes available to schedule pods' }))).toBe('no nodes available to schedule pods');
    expect(unschedulableMessage(pending('b'))).toBeUndefined();
  });
});
