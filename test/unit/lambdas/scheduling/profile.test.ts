import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FilterPlugin, ScorePlugin } from '../../../../lambdas/scheduling';
import {
  PASS,
  Profile,
  createExtenderProfile,
  createSimulatorProfile,
  parsePodRequirements,
  reject,
  selectNode,
  snapshotFromKubernetes,
  stateKey,
} from '../../../../lambdas/scheduling';
import { groupByRejection } from './cycle';
import { gpuNode, gpuPod } from './kube-objects';

const seedPod = gpuPod('train', { gpus: 2, annotations: { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960' } });

describe('Profile', () => {
  it('runs preFilter once per cycle and the first rejecting filter wins', () => {
    const calls: string[] = [];
    const seen = stateKey<number>('seen');
    const first: FilterPlugin = {
      name: 'first',
      preFilter(state) {
        calls.push('preFilter');
        state.write(seen, 7);
      },
      filter(state, _pod, node) {
        calls.push(`first:${node.name}`);
        return node.name === 'b' ? reject('InsufficientGpus', `no ${state.read(seen)}`) : PASS;
      },
    };
    const second: FilterPlugin = { name: 'second', filter: (_s, _p, node) => (calls.push(`second:${node.name}`), PASS) };
    const profile = new Profile({ name: 't', filters: [first, second], scorers: [] });
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]);
    const state = profile.startCycle(snapshot, parsePodRequirements(seedPod));
    const outcome = profile.filter(state, snapshot.nodes);
    expect(outcome.feasible.map((n) => n.name)).toEqual(['a']);
    expect(outcome.rejected).toEqual([{ node: snapshot.getNode('b'), status: { ok: false, code: 'InsufficientGpus', message: 'Not enough GPUs: no 7', unresolvable: false } }]);
    expect(calls).toEqual(['preFilter', 'first:a', 'second:a', 'first:b']);
  });

  it('combines scores as a weighted mean, applies normalize, clamps to 0..100', () => {
    const byName: ScorePlugin = { name: 'byName', score: (_s, _p, node) => (node.name === 'a' ? 100 : 0) };
    const wild: ScorePlugin = {
      name: 'wild',
      score: () => 1000,
      normalizeScores(_s, _p, scores) {
        scores[0] = 50;
      },
    };
    const profile = new Profile({
      name: 't',
      filters: [],
      scorers: [
        { plugin: byName, weight: 3 },
        { plugin: wild, weight: 1 },
      ],
    });
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]);
    const state = profile.startCycle(snapshot, parsePodRequirements(seedPod));
    expect(Array.from(profile.score(state, snapshot.nodes))).toEqual([(300 + 50) / 4, 100 / 4]);
  });

  it('rejects bad weights at construction', () => {
    expect(() => new Profile({ name: 't', filters: [], scorers: [{ plugin: { name: 'x', score: () => 1 }, weight: -1 }] })).toThrow(/weight of x/);
  });

  it('an invalid pod is rejected on every node with a reason naming the annotation and value', () => {
    const profile = createExtenderProfile();
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]);
    const pod = parsePodRequirements(gpuPod('p', { gpus: 1, annotations: { 'gpu.nvidia.com/memory': 'abc' } }));
    const outcome = profile.filter(profile.startCycle(snapshot, pod), snapshot.nodes);
    expect(outcome.feasible).toEqual([]);
    expect(outcome.rejected.map((r) => r.status.code)).toEqual(['InvalidPodAnnotation', 'InvalidPodAnnotation']);
    expect(outcome.rejected[0]?.status.message).toBe('Invalid pod: annotation gpu.nvidia.com/memory="abc" is not MiB or a quantity such as 40Gi');
  });
});

describe('Profile.filterGrouped', () => {
  // Each node answers one of a few verdicts chosen per node; two rejections
  // share a code and message but are distinct objects, as two plugins' would be.
  const VERDICTS = [PASS, reject('InsufficientGpus', 'no GPUs'), reject('GpuModelMismatch', 'wrong model', true), reject('InsufficientGpus', 'no GPUs')];

  it('gives filter()\'s feasible nodes and its rejected nodes grouped by rejection object, for any verdicts', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(VERDICTS.length - 1), { maxLength: 40 }), (picks) => {
        const snapshot = snapshotFromKubernetes(picks.map((_, i) => gpuNode(`n${i}`)));
        const verdictOf = new Map(snapshot.nodes.map((node, i) => [node, VERDICTS[picks[i] as number]!]));
        const plugin: FilterPlugin = { name: 'picked', filter: (_s, _p, node) => verdictOf.get(node)! };
        const profile = new Profile({ name: 't', filters: [plugin], scorers: [] });
        const state = profile.startCycle(snapshot, parsePodRequirements(seedPod));
        const expected = profile.filter(state, snapshot.nodes);
        const actual = profile.filterGrouped(state, snapshot.nodes);
        expect(actual.feasible).toEqual(expected.feasible);
        expect([...actual.rejected]).toEqual([...groupByRejection(expected.rejected)]);
        for (const [status] of actual.rejected) expect(VERDICTS).toContain(status);
        expect(actual.rejectedCount).toBe(expected.rejected.length);
      }),
      { numRuns: 300 },
    );
  });

  it('rejects an invalid pod on every node, in one group', () => {
    const profile = createExtenderProfile();
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]);
    const pod = parsePodRequirements(gpuPod('p', { gpus: 1, annotations: { 'gpu.nvidia.com/memory': 'abc' } }));
    const outcome = profile.filterGrouped(profile.startCycle(snapshot, pod), snapshot.nodes);
    expect(outcome.feasible).toEqual([]);
    expect(outcome.rejectedCount).toBe(2);
    expect([...outcome.rejected].map(([status, nodes]) => [status.code, nodes.map((n) => n.name)])).toEqual([['InvalidPodAnnotation', ['a', 'b']]]);
  });
});

describe('default profiles', () => {
  it('extender profile places the seed pod on the partly used A100 node and keeps the empty one whole', () => {
    const snapshot = snapshotFromKubernetes(
      [gpuNode('empty', { gpus: 8 }), gpuNode('partly', { gpus: 8 }), gpuNode('t4', { gpus: 8, model: 'T4', memoryMiB: 16384 })],
      [gpuPod('busy', { gpus: 5, nodeName: 'partly' })],
    );
    const placement = selectNode(createExtenderProfile(), snapshot, parsePodRequirements(seedPod));
    expect(placement.node?.name).toBe('partly');
    expect(placement.rejected.map((r) => [r.node.name, r.status.code])).toEqual([['t4', 'GpuModelMismatch']]);
  });

  it('simulator profile also checks cpu and memory', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('tiny', { cpu: '1' }), gpuNode('big', { cpu: '64' })]);
    const pod = parsePodRequirements(gpuPod('p', { gpus: 1, cpu: '8' }));
    expect(selectNode(createSimulatorProfile(), snapshot, pod).node?.name).toBe('big');
    expect(selectNode(createExtenderProfile(), snapshot, pod).feasible).toHaveLength(2);
  });

  it('returns no node and every reason when nothing fits', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('one', { gpus: 1 })]);
    const placement = selectNode(createSimulatorProfile(), snapshot, parsePodRequirements(seedPod));
    expect(placement.node).toBeUndefined();
    expect(placement.rejected[0]?.status.message).toBe('Not enough GPUs: requested 2, free 1');
  });
});

describe('Profile plugin activation', () => {
  it('a scorer with weight 0 is never called, not even its preFilter', () => {
    const calls: string[] = [];
    const off: ScorePlugin = { name: 'off', preFilter: () => void calls.push('preFilter'), score: () => (calls.push('score'), 100) };
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: off, weight: 0 }] });
    const snapshot = snapshotFromKubernetes([gpuNode('a')]);
    const state = profile.startCycle(snapshot, parsePodRequirements(seedPod));
    expect(Array.from(profile.score(state, snapshot.nodes))).toEqual([0]);
    expect(calls).toEqual([]);
  });
});

describe('the default profile on a cluster with no history', () => {
  it.each([
    [2, ['x4', 'x8'], 'x4'],
    [2, ['x8', 'x4'], 'x4'],
    [1, ['x8', 'x1', 'x4'], 'x1'],
    [4, ['x8', 'x4'], 'x4'],
  ])('a %i-GPU pod on empty nodes %j lands on %s: big nodes stay whole', (gpus, order, expected) => {
    const sizes: Record<string, number> = { x1: 1, x4: 4, x8: 8 };
    const nodes = order.map((name) => gpuNode(name, { gpus: sizes[name] }));
    const snapshot = snapshotFromKubernetes(nodes, []);
    for (const profile of [createExtenderProfile(), createSimulatorProfile()]) {
      const placement = selectNode(profile, snapshot, parsePodRequirements(gpuPod('p', { gpus })));
      expect(placement.node?.name).toBe(expected);
    }
  });

  it('the prior drops out once the cluster has a history of its own', () => {
    // 40 bound 1-GPU pods (more than priorUntilPods): the prior's 2/4/8-GPU pseudo-pods are gone,
    // so the learnt workload alone (1-GPU shapes) decides, and it sees no difference between the nodes.
    const nodes = [gpuNode('big', { gpus: 64 }), gpuNode('x8', { gpus: 8 }), gpuNode('x4', { gpus: 4 })];
    const bound = Array.from({ length: 40 }, (_, i) => gpuPod(`b${i}`, { gpus: 1, nodeName: 'big' }));
    const snapshot = snapshotFromKubernetes(nodes, bound);
    const profile = createExtenderProfile({ weights: { GpuScore: 0, NetworkLocality: 0 } });
    const state = profile.startCycle(snapshot, parsePodRequirements(gpuPod('p', { gpus: 2 })));
    const scores = profile.score(state, [snapshot.getNode('x8'), snapshot.getNode('x4')].filter((n) => n !== undefined));
    expect(scores[0]).toBe(scores[1]);
  });
});
