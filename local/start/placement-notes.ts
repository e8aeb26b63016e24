// The demo's explanations next to its numbers: why a job landed where it did
// (and when that was a coin toss), and why the utilization annotation is not
// the metric that was published.
import { quantize } from '../../lambdas/reconciler/write-discipline';
import type { ExtenderView } from './extender-tap';

const SHOWN_SCORES = 4;

/**
 * The WHY column of the GPU jobs table: how many nodes passed the extender's
 * filter and its top prioritize scores, named with `label`. Nodes that had
 * equal best scores (the extender's tie header) are called a tie, decided by
 * the extender's stable node order; equal top levels in the reply (another
 * extender, or none of ours) are a tie kube-scheduler breaks at random, so a
 * rerun can land elsewhere.
 */
export function placementWhy(view: ExtenderView | undefined, landedOn: string, label: (node: string) => string): string {
  if (!view) return 'extender not consulted';
  // Only the nodes kube-scheduler's own filters left reach the extender: say so, or "1 of 8" reads as 1 of the cluster.
  const fit = `${view.kept.length} of the ${view.kept.length + Object.keys(view.rejected).length} nodes kube-scheduler sent passed the extender`;
  if (view.kept.length === 1) return `${fit}; only candidate`;
  // Equal scores in the order of their labels, so that the same tie reads the same every run.
  const scores = Object.entries(view.scores).sort((a, b) => b[1] - a[1] || label(a[0]).localeCompare(label(b[0])));
  if (scores.length === 0) return fit;
  const shown = scores.slice(0, SHOWN_SCORES).map(([node, score]) => `${label(node)} ${score}`);
  const parts = [fit, `scores ${shown.join(', ')}${scores.length > shown.length ? ', …' : ''}`];
  const top = scores[0]?.[1];
  const tied = scores.filter(([, score]) => score === top).map(([node]) => node);
  const landedScore = view.scores[landedOn];
  if (view.tied.length > 1 && view.tied[0] === landedOn) {
    // Equal scores: the extender gave 10 to one of them, by its stable node order.
    const others = view.tied.slice(1).map(label).sort((a, b) => a.localeCompare(b));
    parts.push(`tie with ${others.join(', ')} (equal scores): the extender gives the top level to one of them by a stable node order, so every request and every extender instance agrees on it`);
  } else if (tied.length > 1 && tied.includes(landedOn)) {
    parts.push(`tie at ${top} (${tied.map(label).join(', ')}): kube-scheduler picks at random among equal totals, so a rerun may land on another`);
  } else if (landedScore !== undefined && top !== undefined && landedScore < top) {
    parts.push(`not our top score: kube-scheduler adds its own plugins' scores to ours`);
  }
  return parts.join('; ');
}

/**
 * What the reconciler did to the published utilization before writing it:
 * values snap down to buckets of UTILIZATION_BUCKET_SIZE so that small
 * changes do not turn into API writes. Empty when the value went through unchanged.
 */
export function utilizationNote(published: number, written: string | undefined, bucketSize: number): string {
  if (written === undefined || Number(written) === published) return '';
  const expected = quantize(Math.min(100, Math.max(0, published)), bucketSize);
  if (Number(written) !== expected) return `kept from an earlier run: it moves only once the metric leaves its bucket by more than UTILIZATION_HYSTERESIS`;
  return `${published} rounded down to a multiple of ${bucketSize} (UTILIZATION_BUCKET_SIZE)`;
}
