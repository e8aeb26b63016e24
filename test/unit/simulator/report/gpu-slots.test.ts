import { describe, expect, it } from 'vitest';
import { NodeInfo } from '../../../../lambdas/scheduling/node-info';
import type { PodInfo } from '../../../../lambdas/scheduling/pod-info';
import { countSlots, nodeSlots } from '../../../../simulator/report/gpu-slots';

const pod = (name: string, gpuCount: number, gpuMilli = 1000): PodInfo => ({
  uid: name,
  namespace: 'ml',
  name,
  labels: {},
  nodeName: 'n',
  demand: { cpuMilli: 0, memoryBytes: 0, gpuCount, gpuMilli },
});

describe('nodeSlots', () => {
  it('marks the devices of pods placed now apart from those of pods bound before, the rest free', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 8 });
    node.addPod(pod('old', 2));
    node.addPod(pod('new', 3));
    const { slots, stranded } = nodeSlots(node, new Set(['new']), 0);
    expect(slots.map((s) => s.state)).toEqual(['bound', 'bound', 'placed', 'placed', 'placed', 'free', 'free', 'free']);
    expect(slots[0]?.pods).toEqual(['ml/old']);
    expect(slots[4]?.pods).toEqual(['ml/new']);
    expect(stranded).toBe(0);
  });

  it('shows the stranded measure, rounded to whole GPUs, on the last free slots, never more than are free', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 4 });
    node.addPod(pod('old', 1));
    expect(nodeSlots(node, new Set(), 1600).slots.map((s) => s.state)).toEqual(['bound', 'free', 'stranded', 'stranded']);
    expect(nodeSlots(node, new Set(), 1600).stranded).toBe(1.6);
    expect(countSlots(nodeSlots(node, new Set(), 9000).slots)).toEqual({ bound: 1, placed: 0, free: 0, stranded: 3 });
    expect(countSlots(nodeSlots(node, new Set(), 400).slots)).toEqual({ bound: 1, placed: 0, free: 3, stranded: 0 });
  });

  it('counts a shared device as taken, with its free share', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 2 });
    node.addPod(pod('share', 1, 250));
    const { slots } = nodeSlots(node, new Set(), 0);
    expect(slots[0]).toEqual({ state: 'bound', freeMilli: 750, pods: ['ml/share'] });
    expect(slots[1]?.state).toBe('free');
  });
});
