import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { outcomeReport, outcomeTable, pendingLine } from '../../../../local/start/outcome-report';
import { gpuNode, gpuPod } from '../../lambdas/scheduling/kube-objects';

const NOW = Date.parse('2026-12-01T10:00:00Z');

function pending(name: string, schedulerName: string, createdSecondsAgo: number, gpus = 1): V1Pod {
  const pod = gpuPod(name, { gpus }) as V1Pod;
  return {
    ...pod,
    metadata: { ...pod.metadata, creationTimestamp: new Date(NOW - createdSecondsAgo * 1000) },
    spec: { ...pod.spec, containers: pod.spec?.containers ?? [], schedulerName },
  };
}

describe('outcome report (npm start, after the demo)', () => {
  const nodes = [gpuNode('a', { gpus: 8, model: 'A100' }), gpuNode('t', { gpus: 4, model: 'T4' })];
  const bound = [gpuPod('x', { gpus: 6, nodeName: 'a' }) as V1Pod, gpuPod('y', { gpus: 1, nodeName: 't' }) as V1Pod];

  it('counts GPU pods pending for the GPU scheduler only, with the oldest one\'s age', () => {
    const report = outcomeReport(nodes, [...bound, pending('old', 'gpu-scheduler', 300), pending('new', 'gpu-scheduler', 20), pending('cpu', 'gpu-scheduler', 999, 0), pending('other', 'default-scheduler', 999)], 'gpu-scheduler', NOW);
    expect(report).toMatchObject({ pendingGpuPods: 2, oldestPendingSeconds: 300 });
    expect(pendingLine(report, 'gpu-scheduler')).toBe('GPU pods pending for gpu-scheduler: 2, the oldest for 300 s');
    expect(report.outcome).toMatchObject({ allocatable: 12, allocated: 7, idle: 5 });
  });

  it('prints one row per model and the total, with shares of the GPUs', () => {
    const report = outcomeReport(nodes, bound, 'gpu-scheduler', NOW);
    const { header, rows } = outcomeTable(report);
    expect(header).toEqual(['GPU MODEL', 'NODES', 'GPUS', 'ALLOCATED', 'IDLE', 'STRANDED']);
    expect(rows.map((r) => r.slice(0, 5))).toEqual([
      ['A100', '1', '8', '6 (75 %)', '2'],
      ['T4', '1', '4', '1 (25 %)', '3'],
      ['all', '2', '12', '7 (58 %)', '5'],
    ]);
    expect(pendingLine(report, 'gpu-scheduler')).toBe('GPU pods pending for gpu-scheduler: none');
  });
});
