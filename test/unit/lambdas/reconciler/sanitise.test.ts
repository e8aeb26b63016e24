import { describe, expect, it } from 'vitest';
import { sanitiseCount, sanitisePercent, sanitiseRatio } from '../../../../lambdas/reconciler/sanitise';

describe('sanitise readings', () => {
  it('turns NaN, ±Infinity and negatives into no signal', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0.001, -5]) {
      expect(sanitiseCount(bad)).toBeUndefined();
      expect(sanitiseRatio(bad)).toBeUndefined();
      expect(sanitisePercent(bad)).toBeUndefined();
    }
    expect(sanitiseCount(undefined)).toBeUndefined();
  });

  it('clamps ratios to 1 and percentages to 100, keeps counts', () => {
    expect(sanitiseRatio(1.7)).toBe(1);
    expect(sanitiseRatio(0.25)).toBe(0.25);
    expect(sanitisePercent(250)).toBe(100);
    expect(sanitisePercent(57.3)).toBe(57.3);
    expect(sanitiseCount(1e12)).toBe(1e12);
    expect(sanitiseCount(0)).toBe(0);
  });
});
