import { MAX_EXTENDER_PRIORITY } from './wire-types';

/**
 * Where the drop curve bends (points on the profile's 0..100 scale). Below it
 * a node loses about one level per point behind the best node; beyond it the
 * drop grows logarithmically, so nodes far behind the best stay ranked among
 * themselves (a pod's preferred nodes may all be far behind) until a deficit
 * of about 29.5 points, where the lowest feasible level is reached.
 */
const KNEE = 4;

/** Levels a feasible node may lose behind the best one: it keeps at least 1, above nodes the pod does not fit (0). */
const MAX_DROP = MAX_EXTENDER_PRIORITY - 1;

/**
 * How many levels a node `deficit` points behind the best node loses:
 * round(KNEE·ln(1 + deficit/KNEE)), capped at MAX_DROP. The curve's slope
 * never exceeds 1, so a difference of d points between any two nodes is
 * worth at most ⌊d⌋ + 1 levels, and a node within ~0.53 points of the best
 * gets the best node's level. Non-finite deficits (a NaN score) drop fully.
 */
export function levelDrop(deficit: number): number {
  if (!(deficit >= 0)) return MAX_DROP;
  const drop = Math.round(KNEE * Math.log1p(deficit / KNEE));
  return drop > MAX_DROP ? MAX_DROP : drop;
}

/**
 * Maps the feasible nodes' 0..100 scores onto the extender's whole 0..10.
 * kube-scheduler adds score × extender weight × 10 to its own plugins' sum,
 * and only differences between nodes matter, so the best node gets 10 and
 * every other node loses levels by its absolute distance from the best
 * (levelDrop), never by its rank: noise (40 % vs 41 % utilization, 0.04
 * points) stays a tie instead of being stretched over the whole range, which
 * would outvote the pod's own preferred affinity and spread constraints (see
 * docs/extender.md, "How our score adds to kube-scheduler's").
 */
export function toExtenderScores(scores: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(scores.length);
  let best = -Infinity;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s > best) best = s;
  }
  for (let i = 0; i < scores.length; i++) out[i] = MAX_EXTENDER_PRIORITY - levelDrop(best - (scores[i] as number));
  return out;
}
