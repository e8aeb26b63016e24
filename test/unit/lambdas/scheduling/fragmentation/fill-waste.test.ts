import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FillWasteTables, fillWaste } from '../../../../../lambdas/scheduling/fragmentation/fill-waste';

const table = (items: readonly (readonly [milli: number, weight: number])[]) =>
  fillWaste(
    items.map(([m]) => m),
    items.map(([, w]) => w),
    items.length,
  );

describe('fillWaste', () => {
  it('leaves nothing of a device that whole-GPU pods fill, and all of one nothing fits', () => {
    const whole = table([[1000, 1]]);
    expect(whole.at(1000)).toBe(0);
    expect(whole.at(999)).toBe(999);
    expect(whole.at(0)).toBe(0);
  });

  it('averages over the fitting shares by their weights, to the end', () => {
    // 300 and 500, equally frequent. W(400) = W(100) = 100; W(200) = 200;
    // W(700) = (W(400) + W(200)) / 2 = 150; W(500) = (W(200) + W(0)) / 2 = 100;
    // W(1000) = (W(700) + W(500)) / 2 = 125.
    const w = table([
      [300, 1],
      [500, 1],
    ]);
    expect(w.at(400)).toBe(100);
    expect(w.at(700)).toBe(150);
    expect(w.at(1000)).toBe(125);
    // Three times as many 500s: W(500) = (200 + 3 · 0) / 4 = 50, W(700) = (100 + 3 · 200) / 4 = 175,
    // W(1000) = (175 + 3 · 50) / 4 = 81.25.
    expect(
      table([
        [300, 1],
        [500, 3],
      ]).at(1000),
    ).toBe(81.25);
  });

  it('never counts more waste than is free, nor less than nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 1000 }), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 6 }), (items) => {
        const w = table(items);
        for (let f = 0; f <= 1000; f++) {
          const v = w.at(f);
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(f + 1e-9);
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe('FillWasteTables', () => {
  it('builds a table once per set of fitting shares', () => {
    const tables = new FillWasteTables();
    const a = tables.tableFor(Int32Array.of(300, 500, 0), Float64Array.of(0.5, 0.5, 9), 2);
    const b = tables.tableFor(Int32Array.of(300, 500), Float64Array.of(0.5, 0.5), 2);
    expect(b).toBe(a);
    const c = tables.tableFor(Int32Array.of(300, 500), Float64Array.of(0.25, 0.75), 2);
    expect(c).not.toBe(a);
    expect(c.at(1000)).toBe(81.25);
  });
});
