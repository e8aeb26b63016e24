/**
 * The `Range` dimension of the DeletionCosts metric: buckets of the deletion
 * costs the reconciler computes, matching the cost table of
 * docs/reconciler.md with the default policy: below zero (warming up, −50),
 * zero (no signal, or idle), the formula's low, middle and high parts, and
 * the cap (1000). A metric's dimension values, so they live with the metric
 * catalog; the reconciler imports them from here to bucket its costs.
 */
export const COST_RANGES = ['Negative', 'Zero', '1-99', '100-499', '500-999', '1000+'] as const;
export type CostRange = (typeof COST_RANGES)[number];

export function costRange(cost: number): CostRange {
  if (cost < 0) return 'Negative';
  if (cost === 0) return 'Zero';
  if (cost < 100) return '1-99';
  if (cost < 500) return '100-499';
  if (cost < 1000) return '500-999';
  return '1000+';
}

export function emptyCostRanges(): Record<CostRange, number> {
  return Object.fromEntries(COST_RANGES.map((range) => [range, 0])) as Record<CostRange, number>;
}
