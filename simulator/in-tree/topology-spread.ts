// kube-scheduler's PodTopologySpread (framework/plugins/podtopologyspread)
// with the gpu-scheduler profile's arguments: no default constraints, so
// only the pod's own topologySpreadConstraints count.
import type { ClusterState, NodeState } from './cluster';
import { requiredNodeAffinityMatches } from './node-affinity';
import type { SchedPod, SpreadConstraint } from './pod-spec';
import { isEverything, selectorMatches } from '../../lambdas/scheduling/label-selector';
import { untoleratedTaint } from './taints';

export const SPREAD_REASON = {
  missingLabel: "node(s) didn't match pod topology spread constraints (missing required label)",
  skew: "node(s) didn't match pod topology spread constraints",
} as const;

const HOSTNAME = 'kubernetes.io/hostname';

function hasAllKeys(node: NodeState, constraints: readonly SpreadConstraint[]): boolean {
  return constraints.every((c) => node.node.labels[c.topologyKey] !== undefined);
}

function included(c: SpreadConstraint, pod: SchedPod, node: NodeState): boolean {
  if (c.nodeAffinityPolicy === 'Honor' && !requiredNodeAffinityMatches(pod, node.node)) return false;
  if (c.nodeTaintsPolicy === 'Honor' && untoleratedTaint(node.node.taints, pod.tolerations) !== undefined) return false;
  return true;
}

/** countPodsMatchSelector: the node's pods in the pod's namespace that the selector matches (none for an empty selector). */
function matchingPods(node: NodeState, c: SpreadConstraint, namespace: string): number {
  if (isEverything(c.selector)) return 0;
  let count = 0;
  for (const pod of node.pods) if (pod.namespace === namespace && selectorMatches(c.selector, pod.labels)) count++;
  return count;
}

export interface SpreadFilterState {
  readonly constraints: readonly SpreadConstraint[];
  /** Per constraint, pods matching per topology value (domains with none included). */
  readonly counts: readonly Map<string, number>[];
  readonly minMatch: readonly number[];
}

/** PreFilter; undefined when the pod has no DoNotSchedule constraint (Skip). */
export function spreadPreFilter(cluster: ClusterState, pod: SchedPod): SpreadFilterState | undefined {
  const constraints = pod.spread.filter((c) => c.hard);
  if (constraints.length === 0) return undefined;
  const counts = constraints.map(() => new Map<string, number>());
  for (const node of cluster.nodes) {
    if (!hasAllKeys(node, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!included(c, pod, node)) return;
      const value = node.node.labels[c.topologyKey] as string;
      const map = counts[i] as Map<string, number>;
      map.set(value, (map.get(value) ?? 0) + matchingPods(node, c, pod.namespace));
    });
  }
  const minMatch = constraints.map((c, i) => {
    const map = counts[i] as Map<string, number>;
    if (map.size < c.minDomains) return 0;
    return map.size === 0 ? Number.MAX_SAFE_INTEGER : Math.min(...map.values());
  });
  return { constraints, counts, minMatch };
}

export function spreadFilter(state: SpreadFilterState, pod: SchedPod, node: NodeState): string | undefined {
  for (let i = 0; i < state.constraints.length; i++) {
    const c = state.constraints[i] as SpreadConstraint;
    const value = node.node.labels[c.topologyKey];
    if (value === undefined) return SPREAD_REASON.missingLabel;
    const self = selectorMatches(c.selector, pod.labels) ? 1 : 0;
    const skew = ((state.counts[i] as Map<string, number>).get(value) ?? 0) + self - (state.minMatch[i] as number);
    if (skew > c.maxSkew) return SPREAD_REASON.skew;
  }
  return undefined;
}

/**
 * PreScore, Score and NormalizeScore for the pod's ScheduleAnyway
 * constraints: fewer matching pods in a node's domains score higher;
 * undefined when the pod has none (Skip).
 */
export function spreadScores(cluster: ClusterState, pod: SchedPod, feasible: readonly NodeState[]): number[] | undefined {
  const constraints = pod.spread.filter((c) => !c.hard);
  if (constraints.length === 0) return undefined;
  const ignored = new Set<NodeState>();
  const counts = constraints.map(() => new Map<string, number>());
  const domains = constraints.map(() => 0);
  for (const node of feasible) {
    if (!hasAllKeys(node, constraints)) {
      ignored.add(node);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === HOSTNAME) return;
      const map = counts[i] as Map<string, number>;
      const value = node.node.labels[c.topologyKey] as string;
      if (!map.has(value)) {
        map.set(value, 0);
        domains[i] = (domains[i] as number) + 1;
      }
    });
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? feasible.length - ignored.size : (domains[i] as number)) + 2));
  for (const node of cluster.nodes) {
    if (!hasAllKeys(node, constraints)) continue;
    constraints.forEach((c, i) => {
      if (!included(c, pod, node)) return;
      const map = counts[i] as Map<string, number>;
      const value = node.node.labels[c.topologyKey] as string;
      const current = map.get(value);
      if (current !== undefined) map.set(value, current + matchingPods(node, c, pod.namespace));
    });
  }
  const raw = feasible.map((node) => {
    if (ignored.has(node)) return 0;
    let score = 0;
    constraints.forEach((c, i) => {
      const value = node.node.labels[c.topologyKey];
      if (value === undefined) return;
      const count = c.topologyKey === HOSTNAME ? matchingPods(node, c, pod.namespace) : ((counts[i] as Map<string, number>).get(value) ?? 0);
      score += count * (weights[i] as number) + (c.maxSkew - 1);
    });
    return Math.round(score);
  });
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  feasible.forEach((node, i) => {
    if (ignored.has(node)) return;
    min = Math.min(min, raw[i] as number);
    max = Math.max(max, raw[i] as number);
  });
  return feasible.map((node, i) => {
    if (ignored.has(node)) return 0;
    if (max === 0) return 100;
    return Math.floor((100 * (max + min - (raw[i] as number))) / max);
  });
}
