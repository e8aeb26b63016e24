import { describe, expect, it } from 'vitest';
import { gpuFit } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuNode, gpuPod } from '../kube-objects';

const seedPod = gpuPod('train', { gpus: 2, annotations: { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960' } });

describe('GpuFit', () => {
  it('seed example: A100 x8 with 40960 MiB fits a pod wanting 2 A100 with 40960', () => {
    const run = runPlugin(gpuFit, [gpuNode('p4d', { gpus: 8, model: 'A100', memoryMiB: 40960 })], seedPod);
    expect(run.filter('p4d')).toEqual({ ok: true });
  });

  it('not enough free GPUs counts bound pods', () => {
    const run = runPlugin(gpuFit, [gpuNode('n', { gpus: 8 })], seedPod, [gpuPod('busy', { gpus: 7, nodeName: 'n' })]);
    expect(run.filter('n')).toEqual({ ok: false, code: 'InsufficientGpus', message: 'Not enough GPUs: requested 2, free 1', unresolvable: false });
  });

  it('asking for more GPUs than the node has at all is unresolvable', () => {
    const run = runPlugin(gpuFit, [gpuNode('g5', { gpus: 1, model: 'A100' })], seedPod);
    expect(run.filter('g5')).toMatchObject({ ok: false, code: 'InsufficientGpus', message: 'Not enough GPUs: requested 2, free 1', unresolvable: true });
  });

  it('model mismatch names both models', () => {
    const run = runPlugin(gpuFit, [gpuNode('t4', { model: 'T4', memoryMiB: 16384 })], seedPod);
    expect(run.filter('t4')).toEqual({ ok: false, code: 'GpuModelMismatch', message: 'GPU model mismatch: pod wants A100, node has T4', unresolvable: true });
  });

  it('a node without a model label fails a pod that names a model', () => {
    const run = runPlugin(gpuFit, [gpuNode('bare', { model: '' })], seedPod);
    expect(run.filter('bare')).toMatchObject({ code: 'GpuModelMismatch', message: expect.stringContaining('no GPU model label (gpu.nvidia.com/model, karpenter.k8s.aws/instance-gpu-name, eks.amazonaws.com/instance-gpu-name or nvidia.com/gpu.product)') });
  });

  it('matches alternatives and NVIDIA product names, case-insensitively', () => {
    const pod = gpuPod('p', { gpus: 1, annotations: { 'gpu.nvidia.com/model': 'h100|a100' } });
    const run = runPlugin(gpuFit, [gpuNode('gfd', { model: 'NVIDIA-A100-SXM4-40GB' }), gpuNode('l4', { model: 'L4' })], pod);
    expect(run.filter('gfd').ok).toBe(true);
    expect(run.filter('l4')).toMatchObject({ message: 'GPU model mismatch: pod wants h100|a100, node has L4' });
  });

  it('not enough GPU memory names both sizes', () => {
    const run = runPlugin(gpuFit, [gpuNode('small', { memoryMiB: 24576 })], seedPod);
    expect(run.filter('small')).toEqual({
      ok: false,
      code: 'InsufficientGpuMemory',
      message: 'Not enough GPU memory: pod wants 40960 MiB per GPU, node has 24576 MiB',
      unresolvable: true,
    });
  });

  it('pods without a GPU request pass untouched, even on nodes without GPUs', () => {
    const pod = gpuPod('cpu', { annotations: { 'gpu.nvidia.com/model': 'A100' } });
    const run = runPlugin(gpuFit, [gpuNode('none', { gpus: 0, model: '' })], pod);
    expect(run.filter('none')).toEqual({ ok: true });
  });

  it('fractional shares need one device with that much free', () => {
    const run = runPlugin(gpuFit, [gpuNode('n', { gpus: 1 })], seedPod);
    const node = run.snapshot.getNode('n');
    if (node === undefined) throw new Error('setup');
    node.addPod({ uid: 'x', namespace: 'd', name: 'x', labels: {}, nodeName: 'n', demand: { cpuMilli: 0, memoryBytes: 0, gpuCount: 1, gpuMilli: 700 } });
    const pod = { ...run.requirements, gpuModels: undefined, gpuMemoryMiB: undefined, demand: { cpuMilli: 0, memoryBytes: 0, gpuCount: 1, gpuMilli: 500 } };
    expect(gpuFit.filter?.(run.state, pod, node)).toMatchObject({
      code: 'InsufficientGpus',
      message: 'Not enough GPUs: requested 500/1000 of one GPU, largest free share 300/1000',
    });
    const small = { ...pod, demand: { ...pod.demand, gpuMilli: 300 } };
    expect(gpuFit.filter?.(run.state, small, node)).toEqual({ ok: true });
  });
});

describe('GpuFit on real clusters: other labellers, shared GPUs, MIG, nonsense', () => {
  const node = (name: string, labels: Record<string, string>, allocatable: Record<string, string>) => ({
    metadata: { name, labels },
    status: { allocatable: { cpu: '96', memory: '1152Gi', pods: '110', ...allocatable } },
  });
  const pod = (name: string, resources: Record<string, string>, annotations: Record<string, string> = {}) => ({
    metadata: { name, namespace: 'default', uid: `uid-${name}`, annotations },
    spec: { containers: [{ name: 'main', resources: { limits: resources } }] },
  });
  const wantsA100 = { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40Gi' };

  it('a node labelled only by Karpenter or only by GFD is placeable for a model and memory annotation', () => {
    const karpenter = node('karpenter', { 'karpenter.k8s.aws/instance-gpu-name': 'a100', 'karpenter.k8s.aws/instance-gpu-count': '8', 'karpenter.k8s.aws/instance-gpu-memory': '40960' }, { 'nvidia.com/gpu': '8' });
    const gfd = node('gfd', { 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB', 'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.memory': '40960' }, { 'nvidia.com/gpu': '8' });
    const run = runPlugin(gpuFit, [karpenter, gfd], pod('p', { 'nvidia.com/gpu': '2' }, wantsA100));
    expect(run.filter('karpenter')).toEqual({ ok: true });
    expect(run.filter('gfd')).toEqual({ ok: true });
    expect(run.snapshot.getNode('gfd')?.gpuModelName).toBe('A100');
  });

  const timeSliced = node('sliced', { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/count': '4', 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.sharing-strategy': 'time-slicing' }, { 'nvidia.com/gpu': '16' });

  it('replicas are never counted as GPUs: 8 nvidia.com/gpu on 4 GPUs × 4 replicas is rejected, saying why', () => {
    const run = runPlugin(gpuFit, [timeSliced], pod('big', { 'nvidia.com/gpu': '8' }));
    expect(run.filter('sliced')).toEqual({
      ok: false,
      code: 'GpuSharingMismatch',
      message: 'GPU sharing mismatch: GPUs are shared on this node (time-slicing, 4 replicas per GPU, 4 physical): 8 nvidia.com/gpu would be 8 replicas, not 8 GPUs',
      unresolvable: true,
    });
  });

  it('one replica fits while a GPU has a replica free, and bound replicas pack onto one GPU', () => {
    const bound = [0, 1, 2].map((i) => ({ ...pod(`r${i}`, { 'nvidia.com/gpu': '1' }), spec: { nodeName: 'sliced', containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } }));
    const run = runPlugin(gpuFit, [timeSliced], pod('one', { 'nvidia.com/gpu': '1' }), bound);
    expect(run.filter('sliced')).toEqual({ ok: true });
    const sliced = run.snapshot.getNode('sliced');
    expect([...(sliced?.devices ?? [])]).toEqual([250, 1000, 1000, 1000]);
    expect(sliced?.freeWholeGpus).toBe(3);
  });

  it('a pod asking for the renamed shared resource needs a node that advertises it', () => {
    const renamed = node('renamed', { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '1', 'nvidia.com/gpu.replicas': '4' }, { 'nvidia.com/gpu.shared': '4' });
    const whole = node('whole', { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '1' }, { 'nvidia.com/gpu': '1' });
    const run = runPlugin(gpuFit, [renamed, whole], pod('sharer', { 'nvidia.com/gpu.shared': '1' }));
    expect(run.requirements.demand.gpuResource).toBe('nvidia.com/gpu.shared');
    expect(run.filter('renamed')).toEqual({ ok: true });
    expect(run.filter('whole')).toMatchObject({ ok: false, code: 'GpuSharingMismatch', message: 'GPU sharing mismatch: pod asks for nvidia.com/gpu.shared, node advertises nvidia.com/gpu' });
  });

  it('MIG single: the memory annotation is checked against the MIG slice, not the whole GPU', () => {
    const mig = node('mig', { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960', 'nvidia.com/mig.strategy': 'single', 'nvidia.com/gpu.product': 'A100-SXM4-40GB-MIG-1g.5gb', 'nvidia.com/gpu.memory': '5120' }, { 'nvidia.com/gpu': '56' });
    const run = runPlugin(gpuFit, [mig], pod('p', { 'nvidia.com/gpu': '1' }, wantsA100));
    expect(run.filter('mig')).toMatchObject({ ok: false, code: 'InsufficientGpuMemory', message: 'Not enough GPU memory: pod wants 40960 MiB per GPU, node has 5120 MiB' });
  });

  it('MIG mixed: a MIG request is counted per profile and checked against that profile memory', () => {
    const mixed = node('mixed', { 'gpu.nvidia.com/model': 'A100', 'nvidia.com/mig.strategy': 'mixed' }, { 'nvidia.com/mig-3g.20gb': '2', 'nvidia.com/mig-1g.5gb': '1' });
    const ask = (name: string, resource: string, count: string, annotations: Record<string, string> = {}) => pod(name, { [resource]: count }, annotations);
    const holder = { ...ask('held', 'nvidia.com/mig-3g.20gb', '1'), spec: { nodeName: 'mixed', containers: [{ name: 'main', resources: { limits: { 'nvidia.com/mig-3g.20gb': '1' } } }] } };
    expect(runPlugin(gpuFit, [mixed], ask('a', 'nvidia.com/mig-3g.20gb', '1'), [holder]).filter('mixed')).toEqual({ ok: true });
    expect(runPlugin(gpuFit, [mixed], ask('b', 'nvidia.com/mig-3g.20gb', '2'), [holder]).filter('mixed')).toMatchObject({
      ok: false,
      code: 'InsufficientGpus',
      message: 'Not enough GPUs: requested 2 nvidia.com/mig-3g.20gb, free 1',
      unresolvable: false,
    });
    expect(runPlugin(gpuFit, [mixed], ask('c', 'nvidia.com/mig-1g.5gb', '1', { 'gpu.nvidia.com/memory': '10Gi' })).filter('mixed')).toMatchObject({
      code: 'InsufficientGpuMemory',
      message: 'Not enough GPU memory: pod wants 10240 MiB per GPU, nvidia.com/mig-1g.5gb has 5120 MiB',
    });
    expect(runPlugin(gpuFit, [mixed], ask('d', 'nvidia.com/mig-7g.80gb', '1')).filter('mixed')).toMatchObject({ code: 'GpuSharingMismatch' });
  });

  it('a node that reports nonsense is rejected for GPU pods with the reason, and only that node', () => {
    const liar = node('liar', { 'gpu.nvidia.com/model': 'A100' }, { 'nvidia.com/gpu': '2147483648' });
    const honest = node('honest', { 'gpu.nvidia.com/model': 'A100' }, { 'nvidia.com/gpu': '8' });
    const run = runPlugin(gpuFit, [liar, honest], pod('p', { 'nvidia.com/gpu': '1' }));
    expect(run.filter('liar')).toMatchObject({ ok: false, code: 'InvalidNodeData', message: expect.stringMatching(/^Node reports impossible GPU data: allocatable nvidia\.com\/gpu="2147483648"/), unresolvable: true });
    expect(run.filter('honest')).toEqual({ ok: true });
  });
});
