/**
 * Wire types of k8s.io/kube-scheduler/extender/v1. Top-level fields have no
 * JSON tags in Go, so they are PascalCase; the embedded Pod and NodeList keep
 * normal camelCase Kubernetes JSON.
 */
import type { KubeNode, KubePod } from '../scheduling';

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
  /** int64 in Go; we send whole numbers 0..MAX_EXTENDER_PRIORITY. */
  Score: number;
}

export type HostPriorityList = HostPriority[];

export interface MetaPod {
  UID: string;
}

export interface MetaVictims {
  Pods: MetaPod[];
  /** int64 in Go: a fraction or 1e300 would fail kube-scheduler's decoding of the whole reply, so only safe integers ≥ 0 go out. */
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
