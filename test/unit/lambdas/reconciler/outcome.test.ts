import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { reconcileOutcome } from '../../../../lambdas/reconciler/outcome';
import { gpuNode, gpuPod } from '../scheduling/kube-objects';

const NOW = new Date('2026-12-01T10:00:00Z');

describe('reconcileOutcome', () => {
  it('counts the listed GPUs by model and the GPU pods pending for the GPU scheduler', () => {
    const nodes = [gpuNode('a', { gpus: 8, model: 'A100' }), gpuNode('t', { gpus: 4, model: 'T4' })] as V1Node[];
    const waiting = gpuPod('w', { gpus: 2 }) as V1Pod;
    const pods = [
      gpuPod('x', { gpus: 6, nodeName: 'a' }) as V1Pod,
      gpuPod('y', { gpus: 1, nodeName: 't' }) as V1Pod,
      {
        ...waiting,
        metadata: { ...waiting.metadata, creationTimestamp: new Date(NOW.getTime() - 90_000) },
        spec: { ...waiting.spec, containers: waiting.spec?.containers ?? [], schedulerName: 'gpu-scheduler' },
        status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', message: '0/2 nodes are available: 2 Insufficient nvidia.com/gpu.' }] },
      },
    ];
    const outcome = reconcileOutcome(nodes, pods, 'gpu-scheduler', NOW);
    expect(outcome.gpus).toMatchObject({ nodes: 2, allocatable: 12, allocated: 7, idle: 5 });
    expect(Object.keys(outcome.byModel)).toEqual(['A100', 'T4']);
    expect(outcome.byModel.A100).toMatchObject({ allocatable: 8, allocated: 6, idle: 2 });
    expect(outcome.pending).toEqual({ count: 1, oldestSeconds: 90, reasons: [{ code: 'InsufficientGpus', pods: 1 }] });
  });
});
