// The in-tree scores the deployed gpu-scheduler profile keeps (its
// GPU_PROFILE_PLUGINS disable NodeResourcesFit, BalancedAllocation and
// ImageLocality), each normalised as kube-scheduler normalises it and
// weighted as its default plugin list weighs it.
import type { ClusterState, NodeState } from './cluster';
import { affinityRawScores, normalizeAffinityScores } from './inter-pod-affinity';
import { preferredNodeAffinityScore } from './node-affinity';
import type { SchedPod } from './pod-spec';
import { toleratedByAny } from './taints';
import { spreadScores } from './topology-spread';

/** kube-scheduler v1.36 getDefaultPlugins: the weights of the scores the profile keeps. */
export const IN_TREE_SCORE_WEIGHTS = { TaintToleration: 3, NodeAffinity: 2, PodTopologySpread: 2, InterPodAffinity: 2 } as const;
export type InTreeScore = keyof typeof IN_TREE_SCORE_WEIGHTS;

/** DefaultNormalizeScore: scaled so the highest is 100 (reversed: the lowest), in Go's integer arithmetic. */
function defaultNormalize(raw: readonly number[], reverse: boolean): number[] {
  const max = Math.max(0, ...raw);
  if (max === 0) return raw.map(() => (reverse ? 100 : 0));
  return raw.map((s) => {
    const scaled = Math.floor((100 * s) / max);
    return reverse ? 100 - scaled : scaled;
  });
}

/** Each score plugin's normalised 0..100 per feasible node; plugins that skip the pod are absent (they add nothing). */
export function inTreeScores(cluster: ClusterState, pod: SchedPod, feasible: readonly NodeState[]): Map<InTreeScore, number[]> {
  const out = new Map<InTreeScore, number[]>();
  const preferNoSchedule = pod.tolerations.filter((t) => t.effect === '' || t.effect === 'PreferNoSchedule');
  out.set(
    'TaintToleration',
    defaultNormalize(
      feasible.map((n) => n.node.taints.filter((t) => t.effect === 'PreferNoSchedule' && !toleratedByAny(preferNoSchedule, t)).length),
      true,
    ),
  );
  if (pod.preferredNodeTerms.length > 0) out.set('NodeAffinity', defaultNormalize(feasible.map((n) => preferredNodeAffinityScore(pod, n.node)), false));
  const spread = spreadScores(cluster, pod, feasible);
  if (spread !== undefined) out.set('PodTopologySpread', spread);
  const affinity = affinityRawScores(cluster, pod, feasible);
  if (affinity !== undefined) out.set('InterPodAffinity', normalizeAffinityScores(affinity));
  return out;
}
