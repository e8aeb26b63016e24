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
    expect(run.filter('bare')).toMatchObject({ code: 'GpuModelMismatch', message: expect.stringContaining('no gpu.nvidia.com/model label') });
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
      message: 'Not enough GPU share: requested 500/1000 of one GPU, largest free share 300/1000',
    });
    const small = { ...pod, demand: { ...pod.demand, gpuMilli: 300 } };
    expect(gpuFit.filter?.(run.state, small, node)).toEqual({ ok: true });
  });
});
