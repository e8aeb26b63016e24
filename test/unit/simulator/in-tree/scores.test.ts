import { describe, expect, it } from 'vitest';
import { ClusterState, parseSchedNode } from '../../../../simulator/in-tree/cluster';
import { parseSchedPod } from '../../../../simulator/in-tree/pod-spec';
import { IN_TREE_SCORE_WEIGHTS, inTreeScores } from '../../../../simulator/in-tree/scores';
import { gpuNode, gpuPod } from '../../lambdas/scheduling/kube-objects';

type Json = Record<string, unknown>;
const withSpec = (object: object, spec: Json): Json => ({ ...object, spec: { ...(object as { spec?: Json }).spec, ...spec } });

function scores(nodes: readonly object[], bound: readonly object[], pending: object): Record<string, number[]> {
  const cluster = new ClusterState(nodes.map(parseSchedNode));
  for (const raw of bound) {
    const pod = parseSchedPod(raw);
    cluster.bind(pod, pod.nodeName as string);
  }
  return Object.fromEntries(inTreeScores(cluster, parseSchedPod(pending), cluster.nodes));
}

describe('the in-tree scores the gpu-scheduler profile keeps', () => {
  it('uses kube-scheduler v1.36\'s default weights for them', () => {
    expect(IN_TREE_SCORE_WEIGHTS).toEqual({ TaintToleration: 3, NodeAffinity: 2, PodTopologySpread: 2, InterPodAffinity: 2 });
  });

  it('TaintToleration always scores: fewer untolerated PreferNoSchedule taints score higher; the others skip a pod without preferences', () => {
    const prefer = (key: string) => ({ key, value: 'x', effect: 'PreferNoSchedule' });
    const nodes = [gpuNode('none'), withSpec(gpuNode('one'), { taints: [prefer('a')] }), withSpec(gpuNode('two'), { taints: [prefer('a'), prefer('b')] })];
    expect(scores(nodes, [], gpuPod('p'))).toEqual({ TaintToleration: [100, 50, 0] });
  });

  it('NodeAffinity: the preferred terms\' weights, scaled so the best node gets 100', () => {
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z2' }), gpuNode('c', { zone: 'z3' })];
    const term = (zone: string, weight: number) => ({ weight, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] } });
    const pod = withSpec(gpuPod('p'), { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [term('z1', 30), term('z2', 20)] } } });
    // 30 → 100, 20 → 100·20/30 = 66 (integer division), 0 → 0.
    expect(scores(nodes, [], pod).NodeAffinity).toEqual([100, 66, 0]);
  });

  it('InterPodAffinity: min–max over the feasible nodes of the terms\' weights in each topology pair', () => {
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z2' }), gpuNode('c', { zone: 'z3' })];
    const weighted = (weight: number, app: string) => ({ weight, podAffinityTerm: { labelSelector: { matchLabels: { app } }, topologyKey: 'topology.kubernetes.io/zone' } });
    const pod = withSpec(gpuPod('p'), {
      affinity: { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(10, 'web')] }, podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(3, 'batch')] } },
    });
    const bound = [gpuPod('w', { labels: { app: 'web' }, nodeName: 'a' }), gpuPod('x', { labels: { app: 'batch' }, nodeName: 'b' })];
    // Raw 10, −3, 0: (s − min)/(max − min) × 100 → 100, 0, 23.
    expect(scores(nodes, bound, pod).InterPodAffinity).toEqual([100, 0, 23]);
    // An existing pod's required affinity to the incoming pod counts HardPodAffinityWeight (1) for its zone, even for a pod without terms.
    const sticky = withSpec(gpuPod('s', { labels: { app: 's' }, nodeName: 'c' }), {
      affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'p' } }, topologyKey: 'topology.kubernetes.io/zone' }] } },
    });
    expect(scores(nodes, [sticky], gpuPod('p', { labels: { app: 'p' } })).InterPodAffinity).toEqual([0, 0, 100]);
  });

  it('PodTopologySpread ScheduleAnyway: counts × ln(domains + 2), rounded, then reversed against the busiest', () => {
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z1' }), gpuNode('c', { zone: 'z2' })];
    const pod = withSpec(gpuPod('w-3', { labels: { app: 'w' } }), {
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'w' } } }],
    });
    const bound = [gpuPod('w-1', { labels: { app: 'w' }, nodeName: 'a' }), gpuPod('w-2', { labels: { app: 'w' }, nodeName: 'b' })];
    // z1 holds 2: round(2 · ln 4) = 3; z2 holds 0. Normalised 100 · (max + min − s) / max: z1 → 0, z2 → 100.
    expect(scores(nodes, bound, pod).PodTopologySpread).toEqual([0, 0, 100]);
  });
});
