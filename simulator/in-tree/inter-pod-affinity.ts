// kube-scheduler's InterPodAffinity (framework/plugins/interpodaffinity):
// the filter's three checks and the score, over counts per topology pair
// (a node label key and its value).
import type { BoundPod, ClusterState, NodeState } from './cluster';
import type { AffinityTerm, SchedPod, WeightedAffinityTerm } from './pod-spec';
import { termMatches } from './pod-spec';

export const AFFINITY_REASON = {
  affinity: "node(s) didn't match pod affinity rules",
  antiAffinity: "node(s) didn't match pod anti-affinity rules",
  existingAntiAffinity: "node(s) didn't satisfy existing pods anti-affinity rules",
} as const;

type PairCounts = Map<string, number>;

function pair(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

function addPair(counts: PairCounts, node: NodeState, key: string, value: number): void {
  const label = node.node.labels[key];
  if (label !== undefined) counts.set(pair(key, label), (counts.get(pair(key, label)) ?? 0) + value);
}

function matchesAll(terms: readonly AffinityTerm[], pod: SchedPod): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod));
}

/** The bound pods a term could match: its namespaces, or every pod when a namespaceSelector may widen them. */
function candidates(cluster: ClusterState, terms: readonly AffinityTerm[]): readonly BoundPod[] {
  const first = terms[0];
  if (first === undefined) return [];
  return cluster.podsInAny(terms.every((t) => t.namespaceSelector === null) ? first.namespaces : undefined);
}

export interface AffinityFilterState {
  readonly pod: SchedPod;
  readonly existingAntiAffinity: PairCounts;
  /** The topology keys existingAntiAffinity counts under: a node is checked on these labels only. */
  readonly existingAntiAffinityKeys: readonly string[];
  readonly affinity: PairCounts;
  readonly antiAffinity: PairCounts;
}

/** PreFilter; undefined when the plugin has nothing to check for this pod (kube-scheduler's Skip). */
export function affinityPreFilter(cluster: ClusterState, pod: SchedPod): AffinityFilterState | undefined {
  const existingAntiAffinity: PairCounts = new Map();
  for (const { pod: existing, node } of cluster.withRequiredAntiAffinity) {
    for (const term of existing.requiredAntiAffinity) if (termMatches(term, pod)) addPair(existingAntiAffinity, node, term.topologyKey, 1);
  }
  if (existingAntiAffinity.size === 0 && pod.requiredAffinity.length === 0 && pod.requiredAntiAffinity.length === 0) return undefined;
  const affinity: PairCounts = new Map();
  for (const { pod: existing, node } of candidates(cluster, pod.requiredAffinity)) {
    if (matchesAll(pod.requiredAffinity, existing)) for (const term of pod.requiredAffinity) addPair(affinity, node, term.topologyKey, 1);
  }
  const antiAffinity: PairCounts = new Map();
  for (const term of pod.requiredAntiAffinity) {
    for (const { pod: existing, node } of candidates(cluster, [term])) if (termMatches(term, existing)) addPair(antiAffinity, node, term.topologyKey, 1);
  }
  const existingAntiAffinityKeys = [...new Set([...existingAntiAffinity.keys()].map((k) => k.slice(0, k.indexOf('\u0000'))))];
  return { pod, existingAntiAffinity, existingAntiAffinityKeys, affinity, antiAffinity };
}

/** Filter: the reason the node fails, or undefined. */
export function affinityFilter(state: AffinityFilterState, node: NodeState): string | undefined {
  const labels = node.node.labels;
  let podsExist = true;
  for (const term of state.pod.requiredAffinity) {
    const value = labels[term.topologyKey];
    if (value === undefined) return AFFINITY_REASON.affinity;
    if ((state.affinity.get(pair(term.topologyKey, value)) ?? 0) <= 0) podsExist = false;
  }
  // The first pod of a group that matches its own terms may go anywhere its terms' keys exist.
  if (!podsExist && !(state.affinity.size === 0 && matchesAll(state.pod.requiredAffinity, state.pod))) return AFFINITY_REASON.affinity;
  if (state.antiAffinity.size > 0) {
    for (const term of state.pod.requiredAntiAffinity) {
      const value = labels[term.topologyKey];
      if (value !== undefined && (state.antiAffinity.get(pair(term.topologyKey, value)) ?? 0) > 0) return AFFINITY_REASON.antiAffinity;
    }
  }
  // kube-scheduler looks up every label of the node; only the keys that were counted can hit.
  for (const key of state.existingAntiAffinityKeys) {
    const value = labels[key];
    if (value !== undefined && (state.existingAntiAffinity.get(pair(key, value)) ?? 0) > 0) return AFFINITY_REASON.existingAntiAffinity;
  }
  return undefined;
}

/** kube-scheduler's default HardPodAffinityWeight: an existing pod's required affinity to the incoming pod counts this much. */
const HARD_POD_AFFINITY_WEIGHT = 1;

type TopologyScore = Map<string, Map<string, number>>;

function addScore(scores: TopologyScore, node: NodeState, key: string, value: number): void {
  const label = node.node.labels[key];
  if (label === undefined) return;
  let byValue = scores.get(key);
  if (byValue === undefined) scores.set(key, (byValue = new Map()));
  byValue.set(label, (byValue.get(label) ?? 0) + value);
}

function processTerms(scores: TopologyScore, terms: readonly WeightedAffinityTerm[], target: SchedPod, node: NodeState, sign: number): void {
  for (const { term, weight } of terms) if (termMatches(term, target)) addScore(scores, node, term.topologyKey, weight * sign);
}

/**
 * PreScore and Score: each feasible node's raw score (the weights of the
 * terms, the pod's and the existing pods', that its topology pairs carry);
 * undefined when no term matched anywhere (Skip).
 */
export function affinityRawScores(cluster: ClusterState, pod: SchedPod, feasible: readonly NodeState[]): number[] | undefined {
  const own = pod.preferredAffinity.length + pod.preferredAntiAffinity.length > 0;
  const existing: readonly BoundPod[] = own ? cluster.podsInAny(undefined) : cluster.withAffinity;
  const scores: TopologyScore = new Map();
  for (const { pod: other, node } of existing) {
    if (Object.keys(node.node.labels).length === 0) continue;
    processTerms(scores, pod.preferredAffinity, other, node, 1);
    processTerms(scores, pod.preferredAntiAffinity, other, node, -1);
    for (const term of other.requiredAffinity) if (termMatches(term, pod)) addScore(scores, node, term.topologyKey, HARD_POD_AFFINITY_WEIGHT);
    processTerms(scores, other.preferredAffinity, pod, node, 1);
    processTerms(scores, other.preferredAntiAffinity, pod, node, -1);
  }
  if (scores.size === 0) return undefined;
  return feasible.map((node) => {
    let score = 0;
    for (const [key, byValue] of scores) {
      const label = node.node.labels[key];
      if (label !== undefined) score += byValue.get(label) ?? 0;
    }
    return score;
  });
}

/** NormalizeScore: min–max to 0..100, computed and truncated in Go's order (100 × (s−min)/(max−min), then int64). */
export function normalizeAffinityScores(raw: readonly number[]): number[] {
  const min = Math.min(...raw);
  const max = Math.max(...raw);
  return raw.map((s) => (max > min ? Math.trunc(100 * ((s - min) / (max - min))) : 0));
}
