import { describe, expect, it } from 'vitest';
import { nodeResourcesFit } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuNode, gpuPod } from '../kube-objects';

describe('NodeResourcesFit', () => {
  const nodes = [gpuNode('n', { cpu: '4', memory: '8Gi', pods: '2' })];

  it('passes when cpu, memory and pod slots are free', () => {
    expect(runPlugin(nodeResourcesFit, nodes, gpuPod('p', { cpu: '3', memory: '7Gi' })).filter('n')).toEqual({ ok: true });
  });

  it('accounts bound pods for cpu', () => {
    const run = runPlugin(nodeResourcesFit, nodes, gpuPod('p', { cpu: '2' }), [gpuPod('a', { cpu: '3', nodeName: 'n' })]);
    expect(run.filter('n')).toMatchObject({ code: 'InsufficientCpu', message: 'Insufficient cpu: requested 2000m, free 1000m', unresolvable: false });
  });

  it('memory larger than the node is unresolvable', () => {
    expect(runPlugin(nodeResourcesFit, nodes, gpuPod('p', { memory: '9Gi' })).filter('n')).toMatchObject({ code: 'InsufficientMemory', unresolvable: true });
  });

  it('too many pods', () => {
    const run = runPlugin(nodeResourcesFit, nodes, gpuPod('p'), [gpuPod('a', { nodeName: 'n' }), gpuPod('b', { nodeName: 'n' })]);
    expect(run.filter('n')).toMatchObject({ code: 'TooManyPods' });
  });
});
