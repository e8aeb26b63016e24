/** Summary statistics of repeated timings (pure; unit-tested in test/unit/bench/perf). */

export interface TimingSummary {
  readonly samples: number;
  readonly median: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The p-th percentile (0..100) by the nearest-rank method: the smallest value
 * such that at least p % of the samples are ≤ it. Nearest rank never invents a
 * value between two samples, so a p99 is always a latency that was observed.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no samples');
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Median: the mean of the two middle samples when the count is even. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function summarise(values: readonly number[]): TimingSummary {
  if (values.length === 0) throw new RangeError('summary of no samples');
  const sorted = [...values].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    median: median(sorted),
    p99: percentile(sorted, 99),
    min: sorted[0] as number,
    max: sorted[sorted.length - 1] as number,
  };
}
