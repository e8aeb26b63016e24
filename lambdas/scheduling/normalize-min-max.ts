import { MAX_NODE_SCORE } from './framework';

/**
 * Rescales whole-number scores to 0..100 with integer arithmetic, like the
 * FGD paper's simulator (and kube-scheduler plugins) do: the lowest becomes 0,
 * the highest 100; all equal → all 0.
 */
export function normalizeMinMax(scores: Float64Array): void {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of scores) {
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  const range = hi - lo;
  for (let i = 0; i < scores.length; i++) {
    scores[i] = range === 0 ? 0 : Math.floor((((scores[i] ?? lo) - lo) * MAX_NODE_SCORE) / range);
  }
}
