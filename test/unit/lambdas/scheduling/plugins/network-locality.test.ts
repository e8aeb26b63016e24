import { describe, expect, it } from 'vitest';
import { networkLocality } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuNode, gpuPod } from '../kube-objects';

const nodes = [gpuNode('a1', { zone: 'a' }), gpuNode('a2', { zone: 'a' }), gpuNode('b1', { zone: 'b' }), gpuNode('nozone')];
const worker = gpuPod('worker', { gpus: 1, annotations: { 'gpu.nvidia.com/peer-selector': 'app=trainer,job=x' } });
const peer = (name: string, nodeName: string, namespace = 'default') => gpuPod(name, { gpus: 1, nodeName, namespace, labels: { app: 'trainer', job: 'x' } });

describe('NetworkLocality', () => {
  it('same node > same zone > other zone', () => {
    const run = runPlugin(networkLocality, nodes, worker, [peer('p1', 'a1'), peer('p2', 'b1'), peer('p3', 'b1')]);
    const [a1, a2, b1, nozone] = ['a1', 'a2', 'b1', 'nozone'].map((n) => run.score(n)) as [number, number, number, number];
    expect(b1).toBeGreaterThan(a1);
    expect(a1).toBeGreaterThan(a2);
    expect(a2).toBeGreaterThan(nozone);
    expect(nozone).toBe(0);
    // Tiers do not overlap: a node with one peer out of three beats any zone-only node.
    expect(a1).toBeGreaterThanOrEqual(50);
    expect(a2).toBeLessThan(50);
  });

  it('ignores peers in other namespaces and non-matching pods', () => {
    const run = runPlugin(networkLocality, nodes, worker, [peer('p1', 'a1', 'other'), gpuPod('x', { nodeName: 'a1', labels: { app: 'trainer' } })]);
    expect(nodes.map((n) => run.score(n.metadata?.name ?? ''))).toEqual([0, 0, 0, 0]);
  });

  it('no selector: no preference', () => {
    const run = runPlugin(networkLocality, nodes, gpuPod('solo', { gpus: 1 }), [peer('p1', 'a1')]);
    expect(run.score('a1')).toBe(0);
  });
});
