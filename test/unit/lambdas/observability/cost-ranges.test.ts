import { describe, expect, it } from 'vitest';
import { costRange } from '../../../../lambdas/observability/cost-ranges';
import { SEED_DELETION_COST_POLICY } from '../../../../lambdas/reconciler/deletion-cost-policy';

describe('costRange', () => {
  it.each([
    [SEED_DELETION_COST_POLICY.warmupCost, 'Negative'],
    [SEED_DELETION_COST_POLICY.noSignalCost, 'Zero'],
    [1, '1-99'],
    [99, '1-99'],
    [100, '100-499'],
    [499, '100-499'],
    [500, '500-999'],
    [999, '500-999'],
    [SEED_DELETION_COST_POLICY.maxCost, '1000+'],
  ])('%d → %s', (cost, range) => {
    expect(costRange(cost)).toBe(range);
  });
});
