import type { NodeInfo } from './node-info';
import type { PodRequirements } from './pod-requirements';
import type { RejectionReason } from './reasons';
import { rejectionMessage } from './reasons';
import type { Snapshot } from './snapshot';

/**
 * A small kube-scheduler framework: filter plugins (Filter, optional
 * PreFilter) and score plugins (Score, optional PreFilter, PreScore and
 * NormalizeScore), composed by a Profile with weights.
 * Everything is synchronous and pure; per-cycle data lives in CycleState.
 */

export interface FilterPass {
  readonly ok: true;
}

export interface FilterRejection {
  readonly ok: false;
  readonly code: RejectionReason;
  /** Human-readable, e.g. "Not enough GPUs: requested 2, free 1": the code's phrase (REJECTION_PHRASES), then the detail. */
  readonly message: string;
  /** True when evicting pods cannot help (wrong model, too little memory): kube-scheduler's UnschedulableAndUnresolvable. */
  readonly unresolvable: boolean;
}

export type FilterStatus = FilterPass | FilterRejection;

/** The shared "fits" result, so the hot loop allocates nothing for passing nodes. */
export const PASS: FilterPass = Object.freeze({ ok: true });

/** A rejection whose message is the code's phrase and `detail` (rejectionMessage), so the message always classifies back to the code. */
export function reject(code: RejectionReason, detail?: string, unresolvable = false): FilterRejection {
  return { ok: false, code, message: rejectionMessage(code, detail), unresolvable };
}

/** The best a Score plugin may return (kube-scheduler's MaxNodeScore). */
export const MAX_NODE_SCORE = 100;

/** A typed slot in CycleState; create one per plugin at module scope. */
export interface StateKey<T> {
  readonly name: string;
  /** Phantom field carrying T; never set. */
  readonly type?: T;
}

export function stateKey<T>(name: string): StateKey<T> {
  return { name };
}

/** Data for one pod's scheduling cycle: the snapshot, the parsed pod and what plugins precomputed. */
export class CycleState {
  private readonly slots = new Map<StateKey<unknown>, unknown>();

  constructor(
    readonly snapshot: Snapshot,
    readonly pod: PodRequirements,
  ) {}

  write<T>(key: StateKey<T>, value: T): void {
    this.slots.set(key, value);
  }

  read<T>(key: StateKey<T>): T | undefined {
    return this.slots.get(key) as T | undefined;
  }
}

/**
 * A plugin that rejects nodes (kube-scheduler's FilterPlugin). Filter runs in
 * the per-node hot loop, so it is required: a profile never has to ask.
 */
export interface FilterPlugin {
  readonly name: string;
  /** Once per cycle, before any Filter: precompute what the per-node calls need. */
  preFilter?(state: CycleState, pod: PodRequirements): void;
  filter(state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus;
}

/**
 * What PreScore may return: SKIP says "no preference for this pod" (every
 * node would score the same), as kube-scheduler's Skip status does. The
 * profile then runs no Score for the plugin and leaves its weight out of the
 * mean, so a heavily weighted plugin that only some pods use (NetworkLocality)
 * does not dilute the others' scale for the rest.
 */
export const SKIP = 'skip' as const;
export type PreScoreResult = void | typeof SKIP;

/** A plugin that ranks feasible nodes (kube-scheduler's ScorePlugin); a profile weighs it. */
export interface ScorePlugin {
  readonly name: string;
  /** Once per cycle, before any Filter: precompute what the per-node calls need. */
  preFilter?(state: CycleState, pod: PodRequirements): void;
  /** Once per cycle, with the feasible nodes, before any Score. */
  preScore?(state: CycleState, pod: PodRequirements, nodes: readonly NodeInfo[]): PreScoreResult;
  /** 0..MAX_NODE_SCORE (values outside are clamped). */
  score(state: CycleState, pod: PodRequirements, node: NodeInfo): number;
  /** Rewrites this plugin's raw scores in place (same order as the nodes), e.g. to rescale to 0..100. */
  normalizeScores?(state: CycleState, pod: PodRequirements, scores: Float64Array): void;
}

/** Any plugin a profile holds. One that both filters and scores is a FilterPlugin & ScorePlugin. */
export type Plugin = FilterPlugin | ScorePlugin;

export interface WeightedPlugin {
  readonly plugin: ScorePlugin;
  readonly weight: number;
}

export interface ProfileSpec {
  readonly name: string;
  readonly filters: readonly FilterPlugin[];
  readonly scorers: readonly WeightedPlugin[];
}

export interface RejectedNode {
  readonly node: NodeInfo;
  readonly status: FilterRejection;
}

export interface FilterOutcome {
  readonly feasible: NodeInfo[];
  readonly rejected: RejectedNode[];
}

/**
 * filter()'s verdicts with the rejected nodes by rejection, each group in
 * node order. Plugins share one rejection object per reason, so thousands of
 * rejected nodes make a handful of groups.
 */
export interface GroupedFilterOutcome {
  readonly feasible: NodeInfo[];
  readonly rejected: Map<FilterRejection, NodeInfo[]>;
  /** Nodes rejected, over all groups. */
  readonly rejectedCount: number;
}
