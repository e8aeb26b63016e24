import { describe, expect, it } from 'vitest';
import { gpuHealthOutcome } from '../../../../lambdas/scheduling/gpu-health-outcome';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from './kube-objects';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function withConditions(node: ReturnType<typeof gpuNode>, conditions: unknown[]) {
  return { ...node, status: { ...node.status, conditions } };
}

describe('gpuHealthOutcome', () => {
  it('counts every GPU of a failing node unhealthy, with its age and condition; a degraded node\'s GPUs and pods degraded; healthy nodes not at all', () => {
    const failing = withConditions(gpuNode('f', { model: 'H100' }), [
      { type: 'AcceleratedHardwareReady', status: 'False', reason: 'NvidiaXID79Error', message: 'GPU has fallen off the bus', lastTransitionTime: '2026-12-01T11:49:00Z' },
    ]);
    const degraded = gpuNode('d', { model: 'A100', gpus: 4, labels: { 'gpu.nvidia.com/health': 'degraded' } });
    const healthy = gpuNode('h', { model: 'A100' });
    const pods = [gpuPod('p1', { gpus: 1, nodeName: 'd' }), gpuPod('p2', { gpus: 1, nodeName: 'h' }), gpuPod('cpu', { nodeName: 'd' })];
    const outcome = gpuHealthOutcome(snapshotFromKubernetes([failing, degraded, healthy], pods), NOW, (node) => (node === 'd' ? ['ThermalPower'] : undefined));
    expect(outcome).toMatchObject({ unhealthy: 8, degraded: 4, failingNodes: 1, oldestFailingSeconds: 660, podsOnDegradedNodes: 1 });
    expect(outcome.failing).toEqual([{ node: 'f', condition: 'AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)' }]);
    expect(outcome.byModel).toEqual([
      { key: 'A100', unhealthy: 0, degraded: 4 },
      { key: 'H100', unhealthy: 8, degraded: 0 },
    ]);
    expect(outcome.byClass).toEqual([
      { key: 'ThermalPower', unhealthy: 0, degraded: 4 },
      { key: 'Xid', unhealthy: 8, degraded: 0 },
    ]);
    expect([...outcome.avoidedNodes].sort()).toEqual(['d', 'f']);
  });

  it('counts the GPUs a device-plugin node withholds (allocatable below its labels) as unhealthy, the node not avoided', () => {
    const short = gpuNode('s', { model: 'H100' });
    const node = { ...short, status: { ...short.status, allocatable: { ...short.status?.allocatable, 'nvidia.com/gpu': '6' } } };
    const outcome = gpuHealthOutcome(snapshotFromKubernetes([node]), NOW);
    expect(outcome).toMatchObject({ unhealthy: 2, degraded: 0, failingNodes: 0, oldestFailingSeconds: 0 });
    expect(outcome.byClass).toEqual([{ key: 'DeviceCount', unhealthy: 2, degraded: 0 }]);
    expect(outcome.avoidedNodes.size).toBe(0);
  });

  it('is all zeros for a cluster without health signals', () => {
    const outcome = gpuHealthOutcome(snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]), NOW);
    expect(outcome).toMatchObject({ unhealthy: 0, degraded: 0, byModel: [], byClass: [], failingNodes: 0, podsOnDegradedNodes: 0 });
  });
});
