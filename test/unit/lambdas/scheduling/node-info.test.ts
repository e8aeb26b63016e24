import { describe, expect, it } from 'vitest';
import { NodeInfo, nodeInfoFromKubernetes, parseUtilization, Snapshot, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import type { PodInfo } from '../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from './kube-objects';

function pod(uid: string, gpuCount: number, gpuMilli = 1000, nodeName = 'n'): PodInfo {
  return { uid, namespace: 'default', name: uid, labels: {}, nodeName, demand: { cpuMilli: 100, memoryBytes: 1, gpuCount, gpuMilli } };
}

describe('NodeInfo from Kubernetes JSON', () => {
  it('reads allocatable, labels, zone and utilization', () => {
    const node = nodeInfoFromKubernetes(gpuNode('p4d-1', { zone: 'us-east-1a', utilization: '37.5' }));
    expect(node?.gpuCount).toBe(8);
    expect(node?.gpuModel).toBe('A100');
    expect(node?.gpuMemoryMiB).toBe(40960);
    expect(node?.zone).toBe('us-east-1a');
    expect(node?.gpuUtilization).toBe(37.5);
    expect(node?.allocatableCpuMilli).toBe(96000);
    expect(node?.allocatableMemoryBytes).toBe(1152 * 2 ** 30);
    expect(node?.allocatablePods).toBe(110);
  });

  it('absent utilization is unknown, not zero', () => {
    expect(nodeInfoFromKubernetes(gpuNode('n'))?.gpuUtilization).toBeUndefined();
    expect(parseUtilization('0')).toBe(0);
    expect(parseUtilization('55%')).toBe(55);
    expect(parseUtilization('101')).toBeUndefined();
    expect(parseUtilization('busy')).toBeUndefined();
  });

  it('falls back to the count label when allocatable has no nvidia.com/gpu', () => {
    const node = nodeInfoFromKubernetes({ metadata: { name: 'n', labels: { 'gpu.nvidia.com/count': '4' } }, status: { allocatable: { cpu: '4' } } });
    expect(node?.gpuCount).toBe(4);
  });

  it('skips nameless nodes and survives garbage', () => {
    expect(nodeInfoFromKubernetes({ metadata: {} })).toBeUndefined();
    expect(nodeInfoFromKubernetes(null)).toBeUndefined();
    const node = nodeInfoFromKubernetes({ metadata: { name: 'x', labels: { 'gpu.nvidia.com/memory': 'lots' } }, status: { allocatable: { 'nvidia.com/gpu': 'many' } } });
    expect(node?.gpuCount).toBe(0);
    expect(node?.gpuMemoryMiB).toBeUndefined();
  });
});

describe('device accounting', () => {
  it('whole GPUs take free devices and come back on removal', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 4 });
    expect(node.addPod(pod('a', 3))).toEqual([0, 1, 2]);
    expect(node.freeWholeGpus).toBe(1);
    expect(node.fitsGpus(2, 1000)).toBe(false);
    expect(node.fitsGpus(1, 1000)).toBe(true);
    expect(node.requestedCpuMilli).toBe(100);
    expect(node.removePod('a')).toBe(true);
    expect(node.freeWholeGpus).toBe(4);
    expect(node.requestedCpuMilli).toBe(0);
    expect(node.removePod('a')).toBe(false);
  });

  it('bumps stateVersion on every bind and unbind, and only then (memos of derived scores check it)', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 2 });
    const versions = [node.stateVersion];
    node.addPod(pod('a', 1));
    versions.push(node.stateVersion);
    node.fitsGpus(1, 1000);
    node.clone();
    versions.push(node.stateVersion);
    expect(node.removePod('missing')).toBe(false);
    versions.push(node.stateVersion);
    node.removePod('a');
    versions.push(node.stateVersion);
    expect(versions).toEqual([0, 1, 1, 1, 2]);
  });

  it('fractional shares go to the best-fitting device', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 2 });
    expect(node.addPod(pod('a', 1, 600))).toEqual([0]);
    expect(node.addPod(pod('b', 1, 300))).toEqual([0]);
    expect(Array.from(node.devices)).toEqual([100, 1000]);
    expect(node.freeWholeGpus).toBe(1);
    expect(node.maxDeviceFreeMilli).toBe(1000);
    expect(node.freeGpuMilli).toBe(1100);
    expect(node.addPod(pod('c', 1, 500))).toEqual([1]);
    expect(node.fitsGpus(1, 600)).toBe(false);
    expect(node.fitsGpus(1, 500)).toBe(true);
  });

  it('explicit devices are honoured', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 2 });
    node.addPod(pod('a', 1, 250), [1]);
    expect(Array.from(node.devices)).toEqual([1000, 750]);
  });

  it('overcommitted data consumes what there is without throwing', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 1 });
    expect(node.addPod(pod('a', 4))).toEqual([0]);
    expect(node.freeWholeGpus).toBe(0);
  });

  it('clone is independent', () => {
    const node = new NodeInfo({ name: 'n', gpuCount: 2, zone: 'z' });
    node.addPod(pod('a', 1));
    const copy = node.clone();
    copy.removePod('a');
    expect(copy.freeWholeGpus).toBe(2);
    expect(node.freeWholeGpus).toBe(1);
    expect(copy.zone).toBe('z');
  });
});

describe('snapshotFromKubernetes', () => {
  it('bound, running pods consume their node; finished and pending ones do not', () => {
    const snapshot = snapshotFromKubernetes(
      [gpuNode('n1'), gpuNode('n2'), { metadata: {} }, 'junk'],
      [
        gpuPod('a', { gpus: 3, nodeName: 'n1' }),
        gpuPod('b', { gpus: 2, nodeName: 'n1', phase: 'Succeeded' }),
        gpuPod('c', { gpus: 2 }),
        gpuPod('d', { gpus: 1, nodeName: 'elsewhere' }),
      ],
    );
    expect(snapshot.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    expect(snapshot.getNode('n1')?.freeWholeGpus).toBe(5);
    expect(snapshot.getNode('n2')?.freeWholeGpus).toBe(8);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['a', 'd']);
    expect(snapshot.podsInNamespace('default')).toHaveLength(2);
    expect(snapshot.podsInNamespace('other')).toHaveLength(0);
  });
});

describe('Snapshot.overlay', () => {
  it('request nodes take over the cached pods; other lookups fall through; the base is untouched', () => {
    const base = snapshotFromKubernetes([gpuNode('n1', { zone: 'a' }), gpuNode('n2', { zone: 'b' })], [
      gpuPod('a', { gpus: 3, nodeName: 'n1' }),
      gpuPod('b', { gpus: 1, nodeName: 'n2' }),
    ]);
    const fresh = nodeInfoFromKubernetes(gpuNode('n1', { zone: 'a', utilization: '10' }));
    if (fresh === undefined) throw new Error('setup');
    const view = Snapshot.overlay(base, [fresh]);
    expect(view.nodes).toEqual([fresh]);
    expect(view.getNode('n1')).toBe(fresh);
    expect(fresh.freeWholeGpus).toBe(5);
    expect(fresh.gpuUtilization).toBe(10);
    expect(view.getNode('n2')).toBe(base.getNode('n2'));
    expect(view.podsInNamespace('default').map((p) => p.name)).toEqual(['a', 'b']);

    view.bind({ uid: 'c', namespace: 'default', name: 'c', labels: {}, nodeName: 'n1', demand: { cpuMilli: 0, memoryBytes: 0, gpuCount: 2, gpuMilli: 1000 } });
    expect(fresh.freeWholeGpus).toBe(3);
    expect(view.pods).toHaveLength(3);
    expect(base.pods).toHaveLength(2);
    expect(base.getNode('n1')?.freeWholeGpus).toBe(5);
  });
});
