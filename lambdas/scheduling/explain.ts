import type { NodeInfo } from './node-info';
import type { ScoreBreakdown } from './profile';

/** One node's total and each plugin's normalised score (0..100) there. */
export interface NodeScoreExplanation {
  readonly node: string;
  /** Weighted mean of the plugin scores, 0..100. */
  readonly total: number;
  readonly plugins: Readonly<Record<string, number>>;
}

/** Why the best node won: its scores, the runner-up's, and whether it was a tie. */
export interface ChoiceExplanation {
  readonly best: NodeScoreExplanation;
  /** Absent when only one node was feasible. */
  readonly runnerUp?: NodeScoreExplanation;
  /** best.total − runnerUp.total (0 without a runner-up). */
  readonly margin: number;
  /** The runner-up scored the same: the choice between them is the tie-break's, not the scores'. */
  readonly tie: boolean;
}

/** Scores within this of each other are one score (float noise from the weighted mean). */
const TIE_EPSILON = 1e-9;

const round2 = (value: number): number => Math.round(value * 100) / 100;

function nodeExplanation(nodes: readonly NodeInfo[], breakdown: ScoreBreakdown, index: number): NodeScoreExplanation {
  const plugins: Record<string, number> = {};
  for (const part of breakdown.plugins) plugins[part.plugin] = round2(part.scores[index] ?? 0);
  return { node: (nodes[index] as NodeInfo).name, total: round2(breakdown.total[index] ?? 0), plugins };
}

/** Where a choice's best node and runner-up are in the scored list; `second` is -1 without a runner-up. */
export interface ChoiceIndices {
  readonly best: number;
  readonly second: number;
}

/**
 * Where explainChoice's best node and runner-up are in the scored list
 * (`best` 0 for an empty list), for callers that need more of them than the
 * explanation holds; explainIndices then explains them.
 */
export function choiceIndices(total: ArrayLike<number>, chosen?: number): ChoiceIndices {
  let best = chosen !== undefined && chosen >= 0 && chosen < total.length ? chosen : 0;
  if (chosen === undefined) for (let i = 1; i < total.length; i++) if ((total[i] ?? 0) > (total[best] ?? 0)) best = i;
  let second = -1;
  for (let i = 0; i < total.length; i++) {
    if (i === best) continue;
    if (second < 0 || (total[i] ?? 0) > (total[second] ?? 0)) second = i;
  }
  return { best, second };
}

/**
 * The best node and the runner-up of one cycle, as selectNode picks them
 * (highest total; on equal totals the earliest node), or with `chosen` the
 * node a caller picked otherwise (the extender's top level). Undefined when
 * no node was scored.
 */
export function explainChoice(nodes: readonly NodeInfo[], breakdown: ScoreBreakdown, chosen?: number): ChoiceExplanation | undefined {
  return explainIndices(nodes, breakdown, choiceIndices(breakdown.total, chosen));
}

/** explainChoice for indices a caller already has (choiceIndices). */
export function explainIndices(nodes: readonly NodeInfo[], breakdown: ScoreBreakdown, { best, second }: ChoiceIndices): ChoiceExplanation | undefined {
  const { total } = breakdown;
  if (nodes.length === 0) return undefined;
  const bestExplained = nodeExplanation(nodes, breakdown, best);
  if (second < 0) return { best: bestExplained, margin: 0, tie: false };
  const margin = (total[best] ?? 0) - (total[second] ?? 0);
  return { best: bestExplained, runnerUp: nodeExplanation(nodes, breakdown, second), margin: round2(margin), tie: margin <= TIE_EPSILON };
}
