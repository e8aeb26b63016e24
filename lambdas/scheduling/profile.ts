import type { FilterOutcome, FilterPlugin, FilterRejection, FilterStatus, GroupedFilterOutcome, Plugin, ProfileSpec, RejectedNode, WeightedPlugin } from './framework';
import { CycleState, MAX_NODE_SCORE, PASS, SKIP, reject } from './framework';
import type { NodeInfo } from './node-info';
import type { PodRequirements } from './pod-requirements';
import type { Snapshot } from './snapshot';

/**
 * Runs a set of plugins for one pod the way kube-scheduler's framework does:
 * PreFilter once, Filter per node (first rejection wins), PreScore once, Score
 * per feasible node, NormalizeScore per plugin, then the weighted mean.
 */
export class Profile {
  readonly name: string;
  readonly filters: readonly FilterPlugin[];
  readonly scorers: readonly WeightedPlugin[];
  private readonly allPlugins: readonly Plugin[];
  private readonly totalWeight: number;

  constructor(spec: ProfileSpec) {
    for (const { plugin, weight } of spec.scorers) {
      if (!(Number.isFinite(weight) && weight >= 0)) throw new Error(`profile ${spec.name}: weight of ${plugin.name} must be a finite number >= 0, got ${weight}`);
    }
    this.name = spec.name;
    this.filters = spec.filters;
    this.scorers = spec.scorers.filter((s) => s.weight > 0);
    // A scorer switched off with weight 0 costs nothing, not even its PreFilter.
    this.allPlugins = [...new Set([...spec.filters, ...this.scorers.map((s) => s.plugin)])];
    this.totalWeight = this.scorers.reduce((sum, s) => sum + s.weight, 0);
  }

  /** Starts a cycle for one pod: runs every plugin's PreFilter once. */
  startCycle(snapshot: Snapshot, pod: PodRequirements): CycleState {
    const state = new CycleState(snapshot, pod);
    if (pod.invalid === undefined) for (const plugin of this.allPlugins) plugin.preFilter?.(state, pod);
    return state;
  }

  /** Filter for one node. A pod with an invalid requirement is rejected everywhere. */
  filterNode(state: CycleState, node: NodeInfo): FilterStatus {
    const pod = state.pod;
    if (pod.invalid !== undefined) return invalidRejection(pod);
    for (const plugin of this.filters) {
      const status = plugin.filter(state, pod, node);
      if (!status.ok) return status;
    }
    return PASS;
  }

  filter(state: CycleState, nodes: readonly NodeInfo[]): FilterOutcome {
    const feasible: NodeInfo[] = [];
    const rejected: RejectedNode[] = [];
    if (state.pod.invalid !== undefined) {
      const status = invalidRejection(state.pod);
      for (const node of nodes) rejected.push({ node, status });
      return { feasible, rejected };
    }
    for (const node of nodes) {
      const status = this.filterNode(state, node);
      if (status.ok) feasible.push(node);
      else rejected.push({ node, status });
    }
    return { feasible, rejected };
  }

  /**
   * filter() with the rejected nodes grouped by rejection as they are found:
   * what a reply that lists them by reason needs, without an object per
   * rejected node and a second pass to group them (the extender's /filter
   * over thousands of nodes).
   */
  filterGrouped(state: CycleState, nodes: readonly NodeInfo[]): GroupedFilterOutcome {
    const feasible: NodeInfo[] = [];
    const rejected = new Map<FilterRejection, NodeInfo[]>();
    let last: FilterRejection | undefined;
    let group: NodeInfo[] = [];
    for (const node of nodes) {
      const status = this.filterNode(state, node);
      if (status.ok) {
        feasible.push(node);
        continue;
      }
      // Neighbours mostly share a reason (one node group after another): skip the lookup then.
      if (status !== last) {
        let found = rejected.get(status);
        if (found === undefined) rejected.set(status, (found = []));
        group = found;
        last = status;
      }
      group.push(node);
    }
    return { feasible, rejected, rejectedCount: nodes.length - feasible.length };
  }

  /**
   * Weighted mean of the plugins' scores, 0..100, one per node in order, over
   * the plugins that did not skip this pod (PreScore returned SKIP). With no
   * scorer every node gets 0.
   */
  score(state: CycleState, nodes: readonly NodeInfo[]): Float64Array {
    return this.weightedScores(state, nodes, undefined);
  }

  /**
   * score() with each plugin's part kept: its normalised 0..100 score per
   * node and its weight, for explaining a choice (the decision log, the
   * simulator's --explain). Plugins that skipped the pod are left out, as
   * they are from the total.
   */
  explainScores(state: CycleState, nodes: readonly NodeInfo[]): ScoreBreakdown {
    const plugins: PluginScores[] = [];
    const total = this.weightedScores(state, nodes, plugins);
    return { total, plugins };
  }

  private weightedScores(state: CycleState, nodes: readonly NodeInfo[], parts: PluginScores[] | undefined): Float64Array {
    const total = new Float64Array(nodes.length);
    const pod = state.pod;
    if (this.totalWeight === 0 || nodes.length === 0 || pod.invalid !== undefined) return total;
    const raw = new Float64Array(nodes.length);
    let active: readonly WeightedPlugin[] = this.scorers;
    let activeWeight = this.totalWeight;
    for (const scorer of this.scorers) {
      if (scorer.plugin.preScore?.(state, pod, nodes) !== SKIP) continue;
      if (active === this.scorers) active = [...this.scorers];
      active = active.filter((s) => s !== scorer);
      activeWeight -= scorer.weight;
    }
    if (activeWeight <= 0) return total;
    for (const { plugin, weight } of active) {
      const scoreFn = plugin.score;
      for (let i = 0; i < nodes.length; i++) raw[i] = scoreFn.call(plugin, state, pod, nodes[i] as NodeInfo);
      plugin.normalizeScores?.(state, pod, raw);
      // Clamped in place, in a plain loop: Float64Array.from with a map
      // function takes the generic iterator path, which cost the extender's
      // /prioritize as much as two plugins' scores.
      for (let i = 0; i < nodes.length; i++) {
        const clamped = clampScore(raw[i] as number);
        raw[i] = clamped;
        total[i] = (total[i] as number) + clamped * weight;
      }
      if (parts !== undefined) parts.push({ plugin: plugin.name, weight, scores: raw.slice() });
    }
    for (let i = 0; i < nodes.length; i++) total[i] = (total[i] ?? 0) / activeWeight;
    return total;
  }
}

/** One score plugin's part of a cycle's scores: normalised 0..100 per node, and its weight. */
export interface PluginScores {
  readonly plugin: string;
  readonly weight: number;
  readonly scores: Float64Array;
}

/** A cycle's weighted-mean scores and the per-plugin parts they came from. */
export interface ScoreBreakdown {
  readonly total: Float64Array;
  readonly plugins: readonly PluginScores[];
}

export interface Placement {
  /** The chosen node, or undefined when no node fits. */
  readonly node: NodeInfo | undefined;
  readonly score: number;
  readonly feasible: readonly NodeInfo[];
  readonly rejected: readonly RejectedNode[];
}

/**
 * One whole scheduling decision: filter, score, pick the highest score (ties:
 * the earliest node in `nodes`, so callers control tie-breaking by order).
 * Does not bind; the caller does that with snapshot.bind.
 */
export function selectNode(profile: Profile, snapshot: Snapshot, pod: PodRequirements, nodes: readonly NodeInfo[] = snapshot.nodes): Placement {
  const state = profile.startCycle(snapshot, pod);
  const { feasible, rejected } = profile.filter(state, nodes);
  if (feasible.length === 0) return { node: undefined, score: 0, feasible, rejected };
  const scores = profile.score(state, feasible);
  let best = 0;
  for (let i = 1; i < feasible.length; i++) if ((scores[i] ?? 0) > (scores[best] ?? 0)) best = i;
  return { node: feasible[best], score: scores[best] ?? 0, feasible, rejected };
}

function clampScore(score: number): number {
  if (!(score > 0)) return 0;
  return score > MAX_NODE_SCORE ? MAX_NODE_SCORE : score;
}

const invalidCache = new WeakMap<PodRequirements, FilterRejection>();

function invalidRejection(pod: PodRequirements): FilterRejection {
  let status = invalidCache.get(pod);
  if (status === undefined) {
    status = reject('InvalidPodAnnotation', pod.invalid?.detail, true);
    invalidCache.set(pod, status);
  }
  return status;
}
