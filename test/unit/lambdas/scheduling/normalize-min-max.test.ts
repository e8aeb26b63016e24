import { describe, expect, it } from 'vitest';
import { normalizeMinMax } from '../../../../lambdas/scheduling/normalize-min-max';

describe('normalizeMinMax', () => {
  it('is integer and all-equal scores become 0', () => {
    const a = Float64Array.from([50, 51, 52]);
    normalizeMinMax(a);
    expect(Array.from(a)).toEqual([0, 50, 100]);
    const b = Float64Array.from([7, 7]);
    normalizeMinMax(b);
    expect(Array.from(b)).toEqual([0, 0]);
  });
});
