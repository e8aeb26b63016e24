import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../../../lambdas/common/map-with-concurrency';

describe('mapWithConcurrency', () => {
  it('keeps at most `limit` calls in flight and returns results in input order', async () => {
    let inFlight = 0;
    let peak = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return n * 10;
    });
    expect(peak).toBe(3);
    expect(results.map((r) => (r.ok ? r.value : undefined))).toEqual([50, 10, 40, 20, 30, 0, 60]);
  });

  it('lets every item run even when some fail', async () => {
    const seen: number[] = [];
    const results = await mapWithConcurrency([1, 2, 3, 4], 2, async (n) => {
      seen.push(n);
      if (n % 2 === 0) throw new Error(`bad ${n}`);
      return n;
    });
    expect(seen.sort()).toEqual([1, 2, 3, 4]);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false]);
    expect(results[1]?.ok === false && (results[1].error as Error).message).toBe('bad 2');
  });

  it('handles an empty list', async () => {
    expect(await mapWithConcurrency([], 4, () => Promise.resolve(1))).toEqual([]);
  });
});
