import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migProfileMemoryMiB, readGpuNodeFacts } from '../../../../lambdas/scheduling/gpu-node-facts';
import { GPU_NODE_LIMITS } from '../../../../lambdas/scheduling/gpu-node-limits';

// Label sets as the real labellers write them (DESIGN.md; NVIDIA GFD README
// "Generated Labels" and its MIG single/mixed tables; Karpenter's AWS provider).
const KARPENTER_P4D = {
  'karpenter.k8s.aws/instance-gpu-name': 'a100',
  'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
  'karpenter.k8s.aws/instance-gpu-count': '8',
  'karpenter.k8s.aws/instance-gpu-memory': '40960',
};
const KARPENTER_P5 = {
  'karpenter.k8s.aws/instance-gpu-name': 'h100',
  'karpenter.k8s.aws/instance-gpu-manufacturer': 'nvidia',
  'karpenter.k8s.aws/instance-gpu-count': '8',
  'karpenter.k8s.aws/instance-gpu-memory': '81920',
};
const AUTO_MODE_P5 = {
  'eks.amazonaws.com/compute-type': 'auto',
  'eks.amazonaws.com/instance-gpu-name': 'h100',
  'eks.amazonaws.com/instance-gpu-manufacturer': 'nvidia',
  'eks.amazonaws.com/instance-gpu-count': '8',
  'eks.amazonaws.com/instance-gpu-memory': '81920',
};
const GFD_P5 = { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3', 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.memory': '81559' };
const GFD_P4D = { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB', 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.memory': '40960' };

describe('readGpuNodeFacts: who labelled the node', () => {
  it('reads a node only Karpenter has labelled', () => {
    expect(readGpuNodeFacts(KARPENTER_P4D, { 'nvidia.com/gpu': '8' })).toMatchObject({ model: 'a100', memoryMiB: 40960, devices: 8, sharing: undefined, invalid: undefined });
  });

  it('reads a node only GPU Feature Discovery has labelled', () => {
    expect(readGpuNodeFacts(GFD_P4D, { 'nvidia.com/gpu': '8' })).toMatchObject({ model: 'NVIDIA-A100-SXM4-40GB', memoryMiB: 40960, devices: 8 });
  });

  it('reads a node only EKS Auto Mode has labelled, like Karpenter\'s', () => {
    expect(readGpuNodeFacts(AUTO_MODE_P5, { 'nvidia.com/gpu': '8' })).toMatchObject({ model: 'h100', memoryMiB: 81920, devices: 8, invalid: undefined });
    // Without the device plugin's count (DRA nodes advertise none), Auto Mode's count is the GPUs.
    expect(readGpuNodeFacts(AUTO_MODE_P5, {}).devices).toBe(8);
  });

  it('where the labellers agree, ours win, then Karpenter, then Auto Mode, then GFD', () => {
    const ours = { 'gpu.nvidia.com/model': 'H100', 'gpu.nvidia.com/memory': '81920', 'gpu.nvidia.com/count': '8' };
    expect(readGpuNodeFacts({ ...GFD_P5, ...AUTO_MODE_P5, ...KARPENTER_P5, ...ours }, {})).toMatchObject({ model: 'H100', memoryMiB: 81920, devices: 8, invalid: undefined });
    expect(readGpuNodeFacts({ ...GFD_P5, ...AUTO_MODE_P5, ...KARPENTER_P5 }, {})).toMatchObject({ model: 'h100', memoryMiB: 81920, invalid: undefined });
    expect(readGpuNodeFacts({ ...GFD_P5, ...AUTO_MODE_P5 }, {})).toMatchObject({ model: 'h100', memoryMiB: 81920, invalid: undefined });
    // Only GFD: NVML's figure, 361 MiB under EC2's, which is the same GPU.
    expect(readGpuNodeFacts(GFD_P5, {})).toMatchObject({ model: 'NVIDIA-H100-80GB-HBM3', memoryMiB: 81559, devices: 8, invalid: undefined });
  });

  it.each([
    ['model', { ...KARPENTER_P4D, 'gpu.nvidia.com/model': 'H100' }, 'labellers disagree on the GPU model: gpu.nvidia.com/model="H100", karpenter.k8s.aws/instance-gpu-name="a100"'],
    ['model', { ...AUTO_MODE_P5, ...GFD_P4D }, 'labellers disagree on the GPU model: eks.amazonaws.com/instance-gpu-name="h100", nvidia.com/gpu.product="NVIDIA-A100-SXM4-40GB"'],
    ['count', { ...KARPENTER_P4D, 'eks.amazonaws.com/instance-gpu-count': '4' }, 'labellers disagree on the GPU count: karpenter.k8s.aws/instance-gpu-count="8", eks.amazonaws.com/instance-gpu-count="4"'],
    ['count', { ...GFD_P4D, 'gpu.nvidia.com/count': '4' }, 'labellers disagree on the GPU count: gpu.nvidia.com/count="4", nvidia.com/gpu.count="8"'],
    ['memory', { ...GFD_P4D, ...KARPENTER_P4D, 'karpenter.k8s.aws/instance-gpu-memory': '81920' }, 'labellers disagree on the GPU memory: karpenter.k8s.aws/instance-gpu-memory="81920", nvidia.com/gpu.memory="40960"'],
  ])('labellers that contradict each other on the %s make the node alone invalid, naming both', (_what, labels, reason) => {
    const facts = readGpuNodeFacts(labels, { 'nvidia.com/gpu': '8' });
    expect(facts.invalid).toContain(reason);
    expect(facts.devices).toBe(0);
  });

  it('EC2 and NVML figures of one GPU agree; spellings of one model agree', () => {
    // T4: EC2 16384, NVML 15360, the widest gap of a real pair (6.25 %).
    const t4 = { 'gpu.nvidia.com/model': 'T4', 'gpu.nvidia.com/memory': '16384', 'nvidia.com/gpu.product': 'Tesla-T4', 'nvidia.com/gpu.memory': '15360' };
    expect(readGpuNodeFacts(t4, {})).toMatchObject({ model: 'T4', memoryMiB: 16384, invalid: undefined });
    const shared = { ...KARPENTER_P4D, 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB-SHARED' };
    expect(readGpuNodeFacts(shared, {}).invalid).toBeUndefined();
  });

  it('another maker\'s GPUs in Karpenter\'s or Auto Mode\'s labels are not an NVIDIA GPU node', () => {
    const radeon = { name: 'radeon-pro-v520', manufacturer: 'amd', count: '1', memory: '8192' };
    for (const prefix of ['karpenter.k8s.aws', 'eks.amazonaws.com']) {
      const labels = Object.fromEntries(Object.entries(radeon).map(([k, v]) => [`${prefix}/instance-gpu-${k}`, v]));
      expect(readGpuNodeFacts(labels, {})).toMatchObject({ model: undefined, memoryMiB: undefined, devices: 0, invalid: undefined });
    }
    const ours = { 'gpu.nvidia.com/model': 'Radeon-Pro-V520', 'gpu.nvidia.com/manufacturer': 'AMD', 'gpu.nvidia.com/count': '1' };
    expect(readGpuNodeFacts(ours, {})).toMatchObject({ model: undefined, devices: 0 });
    expect(readGpuNodeFacts({ ...ours, 'gpu.nvidia.com/manufacturer': 'NVIDIA' }, {})).toMatchObject({ model: 'Radeon-Pro-V520', devices: 1 });
  });

  it('without the device plugin the labels give the count', () => {
    expect(readGpuNodeFacts(KARPENTER_P4D, {}).devices).toBe(8);
    expect(readGpuNodeFacts({}, {}).devices).toBe(0);
  });
});

describe('readGpuNodeFacts: sharing', () => {
  it('time-slicing with GFD labels: 4 physical GPUs × 4 replicas advertise 16, the model tracks 4', () => {
    const labels = { ...GFD_P4D, 'nvidia.com/gpu.count': '4', 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.sharing-strategy': 'time-slicing', 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB-SHARED' };
    expect(readGpuNodeFacts(labels, { 'nvidia.com/gpu': '16' })).toMatchObject({
      devices: 4,
      sharing: { strategy: 'time-slicing', replicas: 4, resource: 'nvidia.com/gpu' },
    });
  });

  it('time-slicing seen only through allocatable: more units than our count label means replicas', () => {
    const facts = readGpuNodeFacts({ 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '4' }, { 'nvidia.com/gpu': '16' });
    expect(facts).toMatchObject({ devices: 4, sharing: { strategy: 'time-slicing', replicas: 4, resource: 'nvidia.com/gpu' } });
  });

  it('MPS, renamed to nvidia.com/gpu.shared', () => {
    const labels = { ...KARPENTER_P4D, 'nvidia.com/gpu.sharing-strategy': 'mps', 'nvidia.com/gpu.replicas': '2' };
    expect(readGpuNodeFacts(labels, { 'nvidia.com/gpu.shared': '16' })).toMatchObject({
      devices: 8,
      sharing: { strategy: 'mps', replicas: 2, resource: 'nvidia.com/gpu.shared' },
    });
  });

  it('MIG single: devices are the MIG slices, with the slice memory even where our label says the full GPU', () => {
    const labels = {
      'gpu.nvidia.com/model': 'A100',
      'gpu.nvidia.com/memory': '40960',
      'gpu.nvidia.com/count': '8',
      'nvidia.com/mig.strategy': 'single',
      'nvidia.com/gpu.product': 'A100-SXM4-40GB-MIG-1g.5gb',
      'nvidia.com/gpu.count': '56',
      'nvidia.com/gpu.memory': '5120',
    };
    expect(readGpuNodeFacts(labels, { 'nvidia.com/gpu': '56' })).toMatchObject({ model: 'A100', devices: 56, memoryMiB: 5120, mig: { strategy: 'single', profile: '1g.5gb' } });
    const { 'nvidia.com/gpu.memory': _dropped, ...withoutMemory } = labels;
    expect(readGpuNodeFacts(withoutMemory, { 'nvidia.com/gpu': '56' }).memoryMiB).toBe(5120);
  });

  it('MIG mixed: one device type per advertised MIG resource, memory from GFD or the profile name', () => {
    const labels = { ...GFD_P4D, 'nvidia.com/mig.strategy': 'mixed', 'nvidia.com/mig-3g.20gb.memory': '20096' };
    const facts = readGpuNodeFacts(labels, { 'nvidia.com/gpu': '6', 'nvidia.com/mig-3g.20gb': '2', 'nvidia.com/mig-1g.5gb': '3' });
    expect(facts.devices).toBe(6);
    expect(facts.mig).toEqual({
      strategy: 'mixed',
      types: [
        { profile: '3g.20gb', resource: 'nvidia.com/mig-3g.20gb', count: 2, memoryMiB: 20096 },
        { profile: '1g.5gb', resource: 'nvidia.com/mig-1g.5gb', count: 3, memoryMiB: 5120 },
      ],
    });
    expect(migProfileMemoryMiB('7g.80gb')).toBe(81920);
    expect(migProfileMemoryMiB('nonsense')).toBeUndefined();
  });
});

describe('readGpuNodeFacts: a node that reports nonsense', () => {
  it.each([
    [{}, { 'nvidia.com/gpu': '2147483648' }, 'allocatable nvidia.com/gpu="2147483648" is outside'],
    [{}, { 'nvidia.com/gpu': '9007199254740991' }, 'allocatable nvidia.com/gpu'],
    [{ 'gpu.nvidia.com/count': '100000' }, {}, 'label gpu.nvidia.com/count'],
    [{ 'gpu.nvidia.com/memory': '99999999999' }, {}, 'label gpu.nvidia.com/memory'],
    [{ 'nvidia.com/gpu.replicas': '1000000' }, { 'nvidia.com/gpu': '8' }, 'label nvidia.com/gpu.replicas'],
    [{}, { 'nvidia.com/mig-1g.5gb': '1e9' }, 'allocatable nvidia.com/mig-1g.5gb'],
  ])('%j %j is invalid with a reason, and models no devices', (labels, allocatable, reason) => {
    const facts = readGpuNodeFacts(labels, allocatable);
    expect(facts.invalid).toContain(reason);
    expect(facts.devices).toBe(0);
  });

  it('never throws and never models more devices than physical bounds allow, whatever the strings', () => {
    const value = fc.oneof(fc.string(), fc.constantFrom('-1', '1e308', 'NaN', '2147483648', '0.5', '64', '448', '65536', ''));
    const key = fc.constantFrom(
      'gpu.nvidia.com/count',
      'gpu.nvidia.com/memory',
      'karpenter.k8s.aws/instance-gpu-count',
      'karpenter.k8s.aws/instance-gpu-memory',
      'eks.amazonaws.com/instance-gpu-count',
      'eks.amazonaws.com/instance-gpu-memory',
      'eks.amazonaws.com/instance-gpu-name',
      'nvidia.com/gpu.count',
      'nvidia.com/gpu.memory',
      'nvidia.com/gpu.replicas',
      'nvidia.com/gpu.sharing-strategy',
      'nvidia.com/mig.strategy',
      'nvidia.com/gpu.product',
    );
    const resource = fc.constantFrom('nvidia.com/gpu', 'nvidia.com/gpu.shared', 'nvidia.com/mig-1g.5gb');
    fc.assert(
      fc.property(fc.dictionary(key, value), fc.dictionary(resource, value), (labels, allocatable) => {
        const facts = readGpuNodeFacts(labels, allocatable);
        expect(Number.isInteger(facts.devices)).toBe(true);
        expect(facts.devices).toBeGreaterThanOrEqual(0);
        expect(facts.devices).toBeLessThanOrEqual(GPU_NODE_LIMITS.devices);
        if (facts.memoryMiB !== undefined) expect(facts.memoryMiB).toBeLessThanOrEqual(GPU_NODE_LIMITS.memoryMiB);
      }),
      { numRuns: 500 },
    );
  });
});
