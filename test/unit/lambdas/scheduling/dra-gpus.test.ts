import { describe, expect, it } from 'vitest';
import { draGpusByNode, draGpuSliceFromKubernetes, type DraGpuSlice } from '../../../../lambdas/scheduling/dra-gpus';
import type { GpuClaim } from '../../../../lambdas/scheduling/dra-claims';
import { readGpuNodeFacts } from '../../../../lambdas/scheduling/gpu-node-facts';
import { podInfoFromKubernetes } from '../../../../lambdas/scheduling/pod-info';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { DRA_GPUS, nvidiaGpuDevice, nvidiaResourceSlice, type DraGpuModel } from '../../../../local/addons/dra-gpu-driver';

/** A slice as the API server returns it: named, with the driver's shape. */
function slice(nodeName: string, count: number, gpu: DraGpuModel = DRA_GPUS.h100, options: Parameters<typeof nvidiaResourceSlice>[3] = {}, name = `${nodeName}-gpu.nvidia.com-x`): Record<string, unknown> {
  const built = nvidiaResourceSlice(nodeName, count, gpu, options);
  return { ...built, metadata: { name } };
}

function reduced(...slices: Record<string, unknown>[]): DraGpuSlice[] {
  return slices.map((s) => {
    const r = draGpuSliceFromKubernetes(s);
    if (r === undefined) throw new Error('slice not read');
    return r;
  });
}

function node(name: string, labels: Record<string, string> = {}, allocatable: Record<string, string> = { cpu: '96', memory: '1Ti', pods: '110' }): Record<string, unknown> {
  return { metadata: { name, labels }, status: { allocatable } };
}

function pod(name: string, nodeName: string, gpus: number): Record<string, unknown> {
  return {
    metadata: { name, namespace: 'default', uid: name },
    spec: { nodeName, containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }] },
    status: { phase: 'Running' },
  };
}

describe('draGpusByNode: NVIDIA ResourceSlices', () => {
  it('counts the full GPUs of a node, with the model and NVML memory the driver publishes', () => {
    const gpus = draGpusByNode(reduced(slice('p5', 8)));
    expect(gpus.get('p5')).toEqual({ devices: 8, withheld: [], warnings: [], claimed: 0, model: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, invalid: undefined });
  });

  it('ignores other drivers, slices without a node, and MIG devices', () => {
    const other = { metadata: { name: 'x' }, spec: { driver: 'gpu.example.com', nodeName: 'n', pool: { name: 'n', generation: 1 }, devices: [] } };
    const shared = { metadata: { name: 'y' }, spec: { driver: 'gpu.nvidia.com', allNodes: true, pool: { name: 'p', generation: 1 }, devices: [] } };
    expect(draGpuSliceFromKubernetes(other)).toBeUndefined();
    expect(draGpuSliceFromKubernetes(shared)).toBeUndefined();
    const mig = { name: 'gpu-0-mig-1g.10gb-0', attributes: { type: { string: 'mig' }, productName: { string: 'NVIDIA A100-SXM4-40GB' } }, capacity: { memory: { value: '9728Mi' } } };
    const devices = [nvidiaGpuDevice(0, DRA_GPUS.a100), mig];
    expect(draGpusByNode(reduced(slice('p4d', 0, DRA_GPUS.a100, { devices }))).get('p4d')?.devices).toBe(1);
  });

  it('counts only the newest generation of a pool, and every slice of it', () => {
    const old = slice('n', 8, DRA_GPUS.h100, { generation: 1 }, 'old');
    const a = slice('n', 2, DRA_GPUS.h100, { generation: 2 }, 'a');
    const b = slice('n', 3, DRA_GPUS.h100, { generation: 2 }, 'b');
    expect(draGpusByNode(reduced(old, a, b)).get('n')?.devices).toBe(5);
    expect(draGpusByNode(reduced(a, old, b)).get('n')?.devices).toBe(5);
  });

  it('rejects only the node whose slices are hostile', () => {
    const noProduct = nvidiaGpuDevice(0, DRA_GPUS.h100) as { attributes: Record<string, unknown> };
    delete noProduct.attributes.productName;
    const noMemory = { ...nvidiaGpuDevice(0, DRA_GPUS.h100), capacity: {} };
    const hugeMemory = { ...nvidiaGpuDevice(0, DRA_GPUS.h100), capacity: { memory: { value: '1Ei' } } };
    const mixed = [nvidiaGpuDevice(0, DRA_GPUS.h100), nvidiaGpuDevice(1, DRA_GPUS.a10g)];
    const many = Array.from({ length: 65 }, (_, i) => nvidiaGpuDevice(i, DRA_GPUS.h100));
    const tooMany = Array.from({ length: 129 }, (_, i) => nvidiaGpuDevice(i, DRA_GPUS.h100));
    const gpus = draGpusByNode(
      reduced(
        slice('no-product', 0, DRA_GPUS.h100, { devices: [noProduct] }),
        slice('no-memory', 0, DRA_GPUS.h100, { devices: [noMemory] }),
        slice('huge-memory', 0, DRA_GPUS.h100, { devices: [hugeMemory] }),
        slice('mixed', 0, DRA_GPUS.h100, { devices: mixed }),
        slice('many', 0, DRA_GPUS.h100, { devices: many }),
        slice('too-many', 0, DRA_GPUS.h100, { devices: tooMany }),
        slice('good', 4),
      ),
    );
    expect(gpus.get('no-product')?.invalid).toMatch(/no productName/);
    expect(gpus.get('no-memory')?.invalid).toMatch(/no memory capacity/);
    expect(gpus.get('huge-memory')?.invalid).toMatch(/impossible \("1Ei"\) memory/);
    expect(gpus.get('mixed')?.invalid).toMatch(/different models/);
    expect(gpus.get('many')?.invalid).toMatch(/65 GPU devices/);
    expect(gpus.get('too-many')?.invalid).toMatch(/129 devices/);
    for (const name of ['no-product', 'no-memory', 'huge-memory', 'mixed', 'many', 'too-many']) expect(gpus.get(name)?.devices).toBe(0);
    expect(gpus.get('good')).toMatchObject({ devices: 4, invalid: undefined });
  });
});

describe('draGpusByNode: device taints of the driver\'s health monitor', () => {
  const tainted = (minor: number, taints: unknown[]) => ({ ...nvidiaGpuDevice(minor, DRA_GPUS.h100), taints });
  const devices = [
    tainted(0, [{ key: 'gpu.nvidia.com/xid', value: '79', effect: 'NoSchedule', timeAdded: '2026-12-01T10:00:00Z' }]),
    tainted(1, [{ key: 'gpu.nvidia.com/gpu-lost', effect: 'NoExecute' }]),
    tainted(2, [{ key: 'gpu.nvidia.com/xid', value: '13', effect: 'None', timeAdded: '2026-12-01T11:00:00Z' }]),
    tainted(3, [{ key: 'gpu.nvidia.com/unmonitored', effect: 'SomeFutureEffect' }]),
    nvidiaGpuDevice(4, DRA_GPUS.h100),
  ];
  const gpus = draGpusByNode(reduced(slice('n', 0, DRA_GPUS.h100, { devices })));

  it('withholds the GPUs a NoSchedule or NoExecute taint keeps pods off, and keeps the others with their None taints', () => {
    expect(gpus.get('n')).toMatchObject({
      devices: 3,
      withheld: [
        { device: 'gpu-0', taint: { key: 'gpu.nvidia.com/xid', value: '79', effect: 'NoSchedule' } },
        { device: 'gpu-1', taint: { key: 'gpu.nvidia.com/gpu-lost', effect: 'NoExecute' } },
      ],
      // An effect the inventory does not know counts as None, as the API asks of consumers.
      warnings: [
        { device: 'gpu-2', taint: { key: 'gpu.nvidia.com/xid', value: '13', effect: 'None', timeAdded: '2026-12-01T11:00:00Z' } },
        { device: 'gpu-3', taint: { key: 'gpu.nvidia.com/unmonitored', effect: 'SomeFutureEffect' } },
      ],
    });
  });

  it('counts a claim on a withheld GPU against none of the node\'s devices', () => {
    const claim: GpuClaim = { key: 'ns/c', requests: [], isAllocated: true, extendedResource: false, allocated: [{ pool: 'n', device: 'gpu-0' }, { pool: 'n', device: 'gpu-4' }] };
    expect(draGpusByNode(reduced(slice('n', 0, DRA_GPUS.h100, { devices })), [claim]).get('n')).toMatchObject({ devices: 3, claimed: 1 });
  });

  it('makes the node\'s GPUs those without such a taint, with the withheld ones unhealthy and the None taints degrading it', () => {
    const snapshot = snapshotFromKubernetes([node('n')], [], [slice('n', 0, DRA_GPUS.h100, { devices })]);
    const info = snapshot.getNode('n');
    expect(info).toMatchObject({ gpuCount: 3, freeWholeGpus: 3 });
    expect(info?.health.unhealthy).toEqual([
      { gpus: 1, class: 'Xid' },
      { gpus: 1, class: 'GpuLost' },
    ]);
    expect(info?.health.degraded.map((d) => d.text)).toEqual([
      'DRA device gpu-2: gpu.nvidia.com/xid=13 (None) since 2026-12-01T11:00:00Z',
      'DRA device gpu-3: gpu.nvidia.com/unmonitored (SomeFutureEffect)',
    ]);
  });
});

describe('readGpuNodeFacts with ResourceSlices', () => {
  const p5 = draGpusByNode(reduced(slice('p5', 8))).get('p5');

  it('takes devices, model and memory from the slices on a node without nvidia.com/gpu allocatable', () => {
    expect(readGpuNodeFacts({}, {}, p5)).toMatchObject({ devices: 8, model: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, invalid: undefined });
  });

  it('keeps the labels\' model and memory first when they agree, and counts devices from the slices', () => {
    const labels = { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '81920', 'gpu.nvidia.com/count': '8' };
    expect(readGpuNodeFacts(labels, {}, p5)).toMatchObject({ devices: 8, model: 'H100', memoryMiB: 81920, invalid: undefined });
    // One GPU gone from the slices (unhealthy, unpublished): fewer devices, not a contradiction.
    const seven = draGpusByNode(reduced(slice('p5', 7))).get('p5');
    expect(readGpuNodeFacts(labels, {}, seven)).toMatchObject({ devices: 7, invalid: undefined });
  });

  it('rejects the node when labels and slices name different models or sizes', () => {
    expect(readGpuNodeFacts({ 'karpenter.k8s.aws/instance-gpu-name': 'a100' }, {}, p5).invalid).toMatch(/karpenter.k8s.aws\/instance-gpu-name="a100", ResourceSlice productName="NVIDIA H100 80GB HBM3"/);
    expect(readGpuNodeFacts({ 'gpu.nvidia.com/memory': '40960' }, {}, p5)).toMatchObject({ devices: 0, invalid: expect.stringMatching(/memory/) as unknown });
  });

  it('lets the device plugin win where it hands out nvidia.com/gpu', () => {
    expect(readGpuNodeFacts({}, { 'nvidia.com/gpu': '4' }, p5)).toMatchObject({ devices: 4, model: undefined });
  });

  it('passes the slices\' problems on as the node\'s', () => {
    const bad = draGpusByNode(reduced(slice('b', 0, DRA_GPUS.h100, { devices: [{ name: 'gpu-0', attributes: { type: { string: 'gpu' } } }] }))).get('b');
    expect(readGpuNodeFacts({}, {}, bad)).toMatchObject({ devices: 0, invalid: expect.stringMatching(/^ResourceSlices of gpu.nvidia.com: /) as unknown });
  });
});

describe('snapshotFromKubernetes with ResourceSlices', () => {
  it('places DRA GPUs beside device-plugin GPUs and counts bound nvidia.com/gpu pods on both', () => {
    const nodes = [node('dra-h100'), node('plugin-a100', { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960' }, { 'nvidia.com/gpu': '8' }), node('cpu')];
    const pods = [pod('a', 'dra-h100', 3), pod('b', 'plugin-a100', 2)];
    const snapshot = snapshotFromKubernetes(nodes, pods, [slice('dra-h100', 8), slice('not-a-node', 2)]);
    const dra = snapshot.getNode('dra-h100');
    expect(dra).toMatchObject({ gpuCount: 8, freeWholeGpus: 5, gpuModelName: 'H100', gpuMemoryMiB: 81559, gpuUsableMemoryMiB: 81920 });
    expect(snapshot.getNode('plugin-a100')).toMatchObject({ gpuCount: 8, freeWholeGpus: 6 });
    expect(snapshot.getNode('cpu')?.gpuCount).toBe(0);
    expect(snapshot.dra.gpusByNode.get('dra-h100')?.devices).toBe(8);
    expect(podInfoFromKubernetes(pods[0])?.demand.gpuCount).toBe(3);
  });
});
