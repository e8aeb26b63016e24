// Required and preferred node affinity with the pod's nodeSelector
// (k8s.io/component-helpers nodeaffinity), shared by the NodeAffinity
// plugin and PodTopologySpread's node inclusion policy.
import type { SchedNode } from './cluster';
import type { NodeSelectorTerm, SchedPod } from './pod-spec';
import { requirementMatches } from '../../lambdas/scheduling/label-selector';

export function nodeTermMatches(term: NodeSelectorTerm, node: SchedNode): boolean {
  if (term.invalid) return false;
  if (term.labels !== undefined && !term.labels.every((r) => requirementMatches(r, node.labels))) return false;
  if (term.fields !== undefined && node.name !== '' && !term.fields.every((r) => requirementMatches(r, { 'metadata.name': node.name }))) return false;
  return true;
}

/** RequiredNodeAffinity.Match: every nodeSelector label, and one required term if the pod has any. */
export function requiredNodeAffinityMatches(pod: SchedPod, node: SchedNode): boolean {
  if (pod.nodeSelector !== undefined) {
    for (const [key, value] of Object.entries(pod.nodeSelector)) if (node.labels[key] !== value) return false;
  }
  if (pod.requiredNodeTerms === undefined) return true;
  return pod.requiredNodeTerms.some((term) => nodeTermMatches(term, node));
}

/** PreferredSchedulingTerms.Score: the weights of the preferred terms the node matches. */
export function preferredNodeAffinityScore(pod: SchedPod, node: SchedNode): number {
  let score = 0;
  for (const { weight, term } of pod.preferredNodeTerms) if (nodeTermMatches(term, node)) score += weight;
  return score;
}
