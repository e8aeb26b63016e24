import { describe, expect, it } from 'vitest';
import type { KubeNode, KubePod } from '../../../../lambdas/scheduling';
import { chooseJobBlock, networkLocality, parsePodRequirements, podsThatFit, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { runPlugin } from './cycle';
import { gpuPod } from './kube-objects';
import { nodeWithFree } from './plugins/harness';
import { topologyNode } from './topology-nodes';

// Under m1: bottom block b1 with 2 free nodes, b2 with 4; under m2: b3 with 8. All 8-GPU nodes.
const nodes: KubeNode[] = [
  ...['b1-0', 'b1-1'].map((n) => topologyNode(n, ['t1', 'm1', 'b1'])),
  ...[0, 1, 2, 3].map((i) => topologyNode(`b2-${i}`, ['t1', 'm1', 'b2'])),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => topologyNode(`b3-${i}`, ['t1', 'm2', 'b3'])),
];
const member = (name: string, size: number, nodeName?: string) =>
  gpuPod(name, {
    gpus: 8,
    labels: { job: 'j' },
    annotations: { 'gpu.nvidia.com/peer-selector': 'job=j', 'gpu.nvidia.com/group-size': String(size) },
    ...(nodeName === undefined ? {} : { nodeName }),
  });
const filler = (name: string, nodeName: string) => gpuPod(name, { gpus: 8, nodeName });

function blockFor(pod: KubePod, bound: readonly KubePod[] = []) {
  const snapshot = snapshotFromKubernetes(nodes, bound);
  const requirements = parsePodRequirements(pod);
  const run = runPlugin(networkLocality, nodes, pod, bound);
  // The nodes the pod still fits, as a profile's filters would leave them.
  const feasible = snapshot.nodes.filter((n) => podsThatFit(n, requirements.demand, 1) > 0);
  const top = Math.max(...feasible.map((n) => run.score(n.name)));
  return { best: feasible.filter((n) => run.score(n.name) === top).map((n) => n.name), run, requirements, snapshot };
}

describe('podsThatFit', () => {
  it('counts copies of the pod by whole GPUs, shares of GPUs and CPU', () => {
    const node = nodeWithFree('n', [1000, 1000, 1000, 500, 250], {}, 60_000);
    expect(podsThatFit(node, { cpuMilli: 0, memoryBytes: 0, gpuCount: 2, gpuMilli: 1000 }, 10)).toBe(1);
    expect(podsThatFit(node, { cpuMilli: 0, memoryBytes: 0, gpuCount: 1, gpuMilli: 250 }, 100)).toBe(15);
    expect(podsThatFit(node, { cpuMilli: 1000, memoryBytes: 0, gpuCount: 1, gpuMilli: 250 }, 100)).toBe(4);
    expect(podsThatFit(node, { cpuMilli: 0, memoryBytes: 0, gpuCount: 1, gpuMilli: 1000 }, 2)).toBe(2);
  });
});

describe('whole-job blocks', () => {
  it('starts a job in the smallest block that holds all of it, not the closest free nodes', () => {
    expect(blockFor(member('w', 4)).best).toEqual(['b2-0', 'b2-1', 'b2-2', 'b2-3']);
    // Best fit: a 2-node job takes b1, leaving b2 whole for a 4-node job.
    expect(blockFor(member('w', 2)).best).toEqual(['b1-0', 'b1-1']);
  });

  it('ranks nodes outside the block by how far up they meet it', () => {
    const { run } = blockFor(member('w', 4));
    expect(run.score('b2-0')).toBeGreaterThan(run.score('b1-0'));
    expect(run.score('b1-0')).toBeGreaterThan(run.score('b3-0'));
  });

  it('later members follow the block the first ones chose', () => {
    const placed = [member('m0', 4, 'b2-0')];
    expect(blockFor(member('m1', 4), placed).best).toEqual(['b2-1', 'b2-2', 'b2-3']);
  });

  it('degrades to the next layer up when the block no longer holds the rest, nearest to the placed pods first', () => {
    const placed = [member('m0', 4, 'b2-0'), filler('f1', 'b2-1'), filler('f2', 'b2-2')];
    const { best, run } = blockFor(member('m1', 4), placed);
    expect(best).toEqual(['b2-3']);
    // m1 m2 m3 do not fit b2 any more: the block is m1 (b1 + b2), so b1 beats b3.
    expect(run.score('b1-0')).toBeGreaterThan(run.score('b3-0'));
  });

  it('goes up as far as needed when no bottom block holds the job', () => {
    const { best } = blockFor(member('w', 10));
    expect(best).toHaveLength(nodes.length);
    const { requirements, snapshot } = blockFor(member('w', 10));
    expect(chooseJobBlock(snapshot.nodes, requirements.demand, 10, undefined)).toMatchObject({ level: 3, key: '2/t1' });
    // More than the whole cluster holds: no block, and with nobody placed no preference.
    expect(chooseJobBlock(snapshot.nodes, requirements.demand, 15, undefined)).toBeUndefined();
  });

  it('with more peers placed than the group size, still places this pod near them', () => {
    const placed = [member('m0', 2, 'b3-0'), member('m1', 2, 'b3-1'), member('m2', 2, 'b3-2')];
    expect(blockFor(member('m3', 2), placed).best).toEqual(['b3-3', 'b3-4', 'b3-5', 'b3-6', 'b3-7']);
  });

  it('several pods of a job on one node: the node is the block while it holds the rest', () => {
    const small = (name: string, nodeName?: string) =>
      gpuPod(name, {
        gpus: 2,
        labels: { job: 's' },
        annotations: { 'gpu.nvidia.com/peer-selector': 'job=s', 'gpu.nvidia.com/group-size': '3' },
        ...(nodeName === undefined ? {} : { nodeName }),
      });
    expect(blockFor(small('s1'), [small('s0', 'b3-5')]).best).toEqual(['b3-5']);
  });
});
