import { describe, expect, it } from 'vitest';
import { HEALTHY, describeCondition, readNodeHealth } from '../../../../lambdas/scheduling/node-health';
import { nodeInfoFromKubernetes } from '../../../../lambdas/scheduling/node-info';
import { gpuNode } from './kube-objects';

const condition = (type: string, status: string, reason?: string, message?: string) => ({ type, status, reason, message, lastTransitionTime: '2026-12-01T10:00:00Z' });

describe('readNodeHealth: what the node monitoring agent, the reconciler and the GPU counts say', () => {
  it('is the shared HEALTHY for a node nothing says anything against, True conditions included', () => {
    const conditions = [condition('Ready', 'False'), condition('AcceleratedHardwareReady', 'True', 'NvidiaGPUIsReady'), condition('NetworkingReady', 'True')];
    expect(readNodeHealth({ labels: {}, conditions, unallocatableGpus: 0 })).toBe(HEALTHY);
  });

  it('fails a node whose AcceleratedHardwareReady is False, whatever the reason, and keeps the condition to name it', () => {
    const health = readNodeHealth({ labels: {}, conditions: [condition('AcceleratedHardwareReady', 'False', 'NvidiaXID79Error', 'GPU has fallen off the bus')], unallocatableGpus: 0 });
    expect(health.failing).toMatchObject({ type: 'AcceleratedHardwareReady', reason: 'NvidiaXID79Error', since: '2026-12-01T10:00:00Z' });
    expect(health.failing && describeCondition(health.failing)).toBe('AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)');
    expect(readNodeHealth({ labels: {}, conditions: [condition('AcceleratedHardwareReady', 'False')], unallocatableGpus: 0 }).failing).toBeDefined();
  });

  it('degrades a node for the reconciler\'s label, a GPU condition Unknown, or a repair condition False; NetworkingReady=False is its own finding', () => {
    const health = readNodeHealth({
      labels: { 'gpu.nvidia.com/health': 'degraded' },
      conditions: [condition('AcceleratedHardwareReady', 'Unknown', 'NodeStatusNeverUpdated'), condition('KernelReady', 'False', 'ForkFailedOutOfPIDs'), condition('NetworkingReady', 'False', 'InterfaceNotUp')],
      unallocatableGpus: 0,
    });
    expect(health.failing).toBeUndefined();
    expect(health.degraded.map((d) => d.class)).toEqual(['Other', 'NotReported', 'NodeRepair']);
    expect(health.degraded[1]?.text).toBe('AcceleratedHardwareReady=Unknown: NodeStatusNeverUpdated');
    expect(health.networkFailing?.reason).toBe('InterfaceNotUp');
    // Another value of the label is not ours: not degraded.
    expect(readNodeHealth({ labels: { 'gpu.nvidia.com/health': 'fine' }, conditions: [], unallocatableGpus: 0 })).toBe(HEALTHY);
  });

  it('reads malformed conditions as absent, never throws', () => {
    for (const conditions of [undefined, 'x', [null, 3, { type: 'AcceleratedHardwareReady' }, { status: 'False' }]]) {
      expect(readNodeHealth({ labels: {}, conditions, unallocatableGpus: 0 })).toBe(HEALTHY);
    }
  });

  it('cuts a long message (the agent aggregates every fault into one)', () => {
    const long = 'x'.repeat(1000);
    expect(describeCondition({ type: 'AcceleratedHardwareReady', status: 'False', reason: 'DCGMError', message: long, since: undefined }).length).toBe(160);
  });
});

describe('nodeInfoFromKubernetes: health and the healthy GPU count', () => {
  it('places only what the device plugin hands out and counts the rest as unhealthy', () => {
    const node = gpuNode('n', { gpus: 8 });
    const seven = { ...node, status: { ...node.status, allocatable: { ...node.status?.allocatable, 'nvidia.com/gpu': '7' } } };
    const info = nodeInfoFromKubernetes(seven);
    expect(info).toMatchObject({ gpuCount: 7, freeWholeGpus: 7 });
    expect(info?.health.unhealthy).toEqual([{ gpus: 1, class: 'DeviceCount' }]);
    expect(nodeInfoFromKubernetes(gpuNode('m'))?.health).toBe(HEALTHY);
  });

  it('keeps the conditions on the node and on its clone', () => {
    const node = gpuNode('n');
    const failing = { ...node, status: { ...node.status, conditions: [condition('AcceleratedHardwareReady', 'False', 'NvidiaDoubleBitError')] } };
    const info = nodeInfoFromKubernetes(failing);
    expect(info?.health.failing?.reason).toBe('NvidiaDoubleBitError');
    expect(info?.clone().health).toBe(info?.health);
  });
});
