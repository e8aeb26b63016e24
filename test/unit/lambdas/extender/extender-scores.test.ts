import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toExtenderScore, toExtenderScores } from '../../../../lambdas/extender/extender-scores';
import { MAX_EXTENDER_PRIORITY } from '../../../../lambdas/extender/wire-types';

describe('toExtenderScore', () => {
  it('scales 0..100 to 0..10 and clamps', () => {
    expect([0, 4, 5, 62.9, 100, 250, -3, Number.NaN].map(toExtenderScore)).toEqual([0, 0, 1, 6, 10, 10, 0, 0]);
  });
});

describe('toExtenderScores', () => {
  it('keeps a ranking that plain rounding would erase', () => {
    // Fragmentation-led scores that differ only by a small utilization term.
    const scores = Float64Array.from([81.2, 83.9, 82.0]);
    expect([...scores].map(toExtenderScore)).toEqual([8, 8, 8]);
    expect([...toExtenderScores(scores)]).toEqual([1, 10, 4]);
  });

  it('keeps absolute scores for one node or for tied nodes', () => {
    expect([...toExtenderScores([62.9])]).toEqual([6]);
    expect([...toExtenderScores([40, 40, 40.001])]).toEqual([4, 4, 4]);
    expect([...toExtenderScores([])]).toEqual([]);
  });

  it('gives every feasible node at least 1, the best 10, and preserves order', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { minLength: 2, maxLength: 50 }), (raw) => {
        const out = toExtenderScores(raw);
        const spread = Math.max(...raw) - Math.min(...raw);
        for (let i = 0; i < raw.length; i++) {
          expect(out[i]).toBeGreaterThanOrEqual(spread >= 0.01 ? 1 : 0);
          expect(out[i]).toBeLessThanOrEqual(MAX_EXTENDER_PRIORITY);
          for (let j = 0; j < raw.length; j++) {
            if ((raw[i] as number) > (raw[j] as number)) expect(out[i]).toBeGreaterThanOrEqual(out[j] as number);
          }
        }
        if (spread >= 0.01) expect(Math.max(...out)).toBe(MAX_EXTENDER_PRIORITY);
      }),
    );
  });
});
