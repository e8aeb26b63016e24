import { describe, expect, it } from 'vitest';
import { createRng, shuffleInPlace } from '../../../../bench/trace/seeded-rng';

describe('seeded RNG (mulberry32)', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA);
  });

  it('int(n) stays in [0, n) and covers it roughly uniformly', () => {
    const rng = createRng(7);
    const counts = new Array<number>(5).fill(0);
    for (let i = 0; i < 5000; i++) {
      const v = rng.int(5);
      counts[v] = (counts[v] ?? 0) + 1;
    }
    for (const c of counts) expect(c).toBeGreaterThan(850);
    expect(() => rng.int(0)).toThrow(RangeError);
    expect(() => rng.int(1.5)).toThrow(RangeError);
  });

  it('shuffle is a seeded permutation', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const one = [...items];
    const two = [...items];
    shuffleInPlace(one, createRng(1));
    shuffleInPlace(two, createRng(1));
    expect(one).toEqual(two);
    expect(one).not.toEqual(items);
    expect([...one].sort((x, y) => x - y)).toEqual(items);
  });
});
