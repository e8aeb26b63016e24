/*
 * Metric readings as published can be anything a buggy exporter sends.
 * Broken readings become "no signal" (undefined), never a reason to protect or
 * sacrifice a pod, and never a value outside what the annotation's reader expects.
 */

/** Counts and durations: non-finite or negative readings are broken data. */
export function sanitiseCount(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value) || value < 0) return undefined;
  return value;
}

/** Ratios: as counts, then clamped to 1 (a rate above 100 % is a publisher rounding error). */
export function sanitiseRatio(value: number | undefined): number | undefined {
  const count = sanitiseCount(value);
  return count === undefined ? undefined : Math.min(1, count);
}

/** Percentages (Container Insights utilization): as counts, then clamped to 100. */
export function sanitisePercent(value: number | undefined): number | undefined {
  const count = sanitiseCount(value);
  return count === undefined ? undefined : Math.min(100, count);
}
