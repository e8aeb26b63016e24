import { describe, expect, it } from 'vitest';
import type { InstanceTypeGpuInfo } from '../../../../lambdas/aws';
import { desiredGpuLabels, labelPatch, ownedLabelKeys, toLabelValue } from '../../../../lambdas/labeler/gpu-labels';

const base = { karpenterLabels: false, gfdLabels: false, manufacturers: ['NVIDIA'] };
const p4d: InstanceTypeGpuInfo = {
  instanceType: 'p4d.24xlarge',
  gpus: [{ name: 'A100', manufacturer: 'NVIDIA', count: 8, memoryMiB: 40960 }],
  totalMemoryMiB: 327680,
};

describe('desiredGpuLabels', () => {
  it('gives model, per-GPU memory, count, manufacturer and total memory', () => {
    expect(desiredGpuLabels(p4d, base)).toEqual({
      'gpu.nvidia.com/model': 'A100',
      'gpu.nvidia.com/memory': '40960',
      'gpu.nvidia.com/count': '8',
      'gpu.nvidia.com/manufacturer': 'NVIDIA',
      'gpu.nvidia.com/total-memory': '327680',
    });
  });

  it('gives nothing for an instance type without GPUs', () => {
    expect(desiredGpuLabels({ instanceType: 't3.large', gpus: [], totalMemoryMiB: 0 }, base)).toEqual({});
  });

  it('gives nothing for GPUs of a manufacturer not configured (case-insensitive match otherwise)', () => {
    const amd = { instanceType: 'g4ad.xlarge', gpus: [{ name: 'Radeon Pro V520', manufacturer: 'AMD', count: 1, memoryMiB: 8192 }], totalMemoryMiB: 8192 };
    expect(desiredGpuLabels(amd, base)).toEqual({});
    expect(desiredGpuLabels(amd, { ...base, manufacturers: ['amd'] })['gpu.nvidia.com/model']).toBe('Radeon-Pro-V520');
  });

  it('adds Karpenter-style keys (lowercase, MiB per GPU) when switched on', () => {
    const labels = desiredGpuLabels(p4d, { ...base, karpenterLabels: true });
    expect(labels).toMatchObject({
      'karpenter.k8s.aws/instance-gpu-name': 'a100',
      'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
      'karpenter.k8s.aws/instance-gpu-count': '8',
      'karpenter.k8s.aws/instance-gpu-memory': '40960',
    });
    expect(Object.keys(labels).some((k) => k.startsWith('nvidia.com/'))).toBe(false);
  });

  it('adds GFD-style keys with the architecture family when switched on', () => {
    expect(desiredGpuLabels(p4d, { ...base, gfdLabels: true })).toMatchObject({
      'nvidia.com/gpu.product': 'NVIDIA-A100',
      'nvidia.com/gpu.count': '8',
      'nvidia.com/gpu.memory': '40960',
      'nvidia.com/gpu.family': 'ampere',
    });
    const unknownFamily = { ...p4d, gpus: [{ name: 'X9', manufacturer: 'NVIDIA', count: 1, memoryMiB: 1 }] };
    expect(desiredGpuLabels(unknownFamily, { ...base, gfdLabels: true })).not.toHaveProperty(['nvidia.com/gpu.family']);
  });
});

describe('ownedLabelKeys', () => {
  it('owns compatibility keys only while they are switched on', () => {
    expect(ownedLabelKeys(base)).toHaveLength(5);
    expect(ownedLabelKeys({ ...base, karpenterLabels: true })).toContain('karpenter.k8s.aws/instance-gpu-name');
    expect(ownedLabelKeys(base)).not.toContain('karpenter.k8s.aws/instance-gpu-name');
    expect(ownedLabelKeys({ ...base, gfdLabels: true })).toContain('nvidia.com/gpu.product');
  });
});

describe('labelPatch', () => {
  const owned = ownedLabelKeys(base);
  const desired = desiredGpuLabels(p4d, base);

  it('sets every desired key on an unlabelled node and nothing else', () => {
    expect(labelPatch({ 'kubernetes.io/os': 'linux' }, desired, owned)).toEqual(desired);
  });
  it('is undefined when the labels are already right (foreign labels ignored)', () => {
    expect(labelPatch({ ...desired, team: 'ml' }, desired, owned)).toBeUndefined();
  });
  it('corrects only the stale keys', () => {
    expect(labelPatch({ ...desired, 'gpu.nvidia.com/count': '4', team: 'ml' }, desired, owned)).toEqual({ 'gpu.nvidia.com/count': '8' });
  });
  it('removes our keys with null when the instance no longer has GPUs, keeping foreign ones', () => {
    expect(labelPatch({ ...desired, team: 'ml', 'karpenter.k8s.aws/instance-gpu-name': 'a100' }, {}, owned)).toEqual({
      'gpu.nvidia.com/model': null,
      'gpu.nvidia.com/memory': null,
      'gpu.nvidia.com/count': null,
      'gpu.nvidia.com/manufacturer': null,
      'gpu.nvidia.com/total-memory': null,
    });
  });
  it('writes nothing for a node without GPUs and without our labels', () => {
    expect(labelPatch(undefined, {}, owned)).toBeUndefined();
  });
});

describe('toLabelValue', () => {
  it.each([
    ['A10G', 'A10G'],
    ['Radeon Pro V520', 'Radeon-Pro-V520'],
    ['  -x- ', 'x'],
    ['', 'unknown'],
    ['a'.repeat(80), 'a'.repeat(63)],
  ])('%j → %j', (input, output) => {
    expect(toLabelValue(input)).toBe(output);
    expect(toLabelValue(input)).toMatch(/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/);
  });
});
