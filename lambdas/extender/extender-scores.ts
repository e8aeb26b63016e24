import { MAX_EXTENDER_PRIORITY } from './wire-types';

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
