/**
 * Wire types of k8s.io/kube-scheduler/extender/v1. Top-level fields have no
 * JSON tags in Go, so they are PascalCase; the embedded Pod and NodeList keep
 * normal camelCase Kubernetes JSON.
 */
import type { KubeNode, KubePod } from './kube-json';

/** Scores an extender returns are 0..MAX_EXTENDER_PRIORITY. */
export const MAX_EXTENDER_PRIORITY = 10;

export interface ExtenderArgs {
  readonly Pod: KubePod | null;
  /** Set when nodeCacheCapable is false. */
  readonly Nodes?: { readonly items?: readonly KubeNode[] | null } | null;
  /** Set when nodeCacheCapable is true. */
  readonly NodeNames?: readonly string[] | null;
}

export type FailedNodesMap = Record<string, string>;

export interface ExtenderFilterResult {
  /** The Node objects that passed, exactly as received (full-Nodes mode); null in NodeNames mode. */
  Nodes: { readonly items: readonly unknown[] } | null;
  NodeNames: string[] | null;
  FailedNodes: FailedNodesMap;
  FailedAndUnresolvableNodes: FailedNodesMap;
  Error: string;
}

export interface HostPriority {
  Host: string;
  Score: number;
}

export type HostPriorityList = HostPriority[];

export interface MetaPod {
  UID: string;
}

export interface MetaVictims {
  Pods: MetaPod[];
  NumPDBViolations: number;
}

export interface Victims {
  readonly Pods: readonly KubePod[];
  readonly NumPDBViolations: number;
}

export interface ExtenderPreemptionArgs {
  readonly Pod: KubePod | null;
  /** Set when nodeCacheCapable is false. */
  readonly NodeNameToVictims?: Readonly<Record<string, Victims>> | null;
  /** Set when nodeCacheCapable is true. */
  readonly NodeNameToMetaVictims?: Readonly<Record<string, MetaVictims>> | null;
}

export interface ExtenderPreemptionResult {
  NodeNameToMetaVictims: Record<string, MetaVictims>;
}

/**
 * Below this spread (on the 0..100 scale) the feasible nodes count as tied:
 * stretching float noise over 0..10 would invent a preference.
 */
const TIE_SPREAD = 0.01;

/**
 * Maps the feasible nodes' 0..100 scores onto the extender's 0..10 so their
 * order survives kube-scheduler's integer scores. Rounding the weighted mean
 * directly leaves 11 levels, which erases most of the profile's ranking (a
 * 10 % vs 85 % utilization difference is worth less than one level next to
 * the fragmentation score), so the best node gets 10 and the worst 1; a
 * feasible node keeps at least 1 to stay above nodes the pod does not fit.
 * Tied (or single) nodes keep their absolute score.
 */
export function toExtenderScores(scores: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(scores.length);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const spread = max - min;
  if (!(spread >= TIE_SPREAD)) {
    for (let i = 0; i < scores.length; i++) out[i] = toExtenderScore(scores[i] as number);
    return out;
  }
  const steps = MAX_EXTENDER_PRIORITY - 1;
  for (let i = 0; i < scores.length; i++) {
    out[i] = 1 + Math.round((steps * ((scores[i] as number) - min)) / spread);
  }
  return out;
}

/** Converts a 0..100 framework score to the extender's 0..10. */
export function toExtenderScore(score: number): number {
  if (!(score > 0)) return 0;
  const scaled = Math.round((score * MAX_EXTENDER_PRIORITY) / 100);
  return scaled > MAX_EXTENDER_PRIORITY ? MAX_EXTENDER_PRIORITY : scaled;
}
