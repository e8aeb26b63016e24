/**
 * Deterministic PRNG for the trace benchmark: mulberry32 (Tommy Ettinger's
 * 32-bit generator; period 2^32, passes gjrand/PractRand to 2^32 outputs).
 * Enough for shuffles and tie-breaks; the benchmark reproduces the paper's
 * METHOD (same seeds 42..51), not Go's math/rand stream, so individual runs
 * differ from the paper's while the means over seeds agree.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n); n must be a positive integer. */
  int(n: number): number;
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int(n: number): number {
      if (!Number.isInteger(n) || n <= 0) throw new RangeError(`int(n) needs a positive integer, got ${n}`);
      return Math.floor(next() * n);
    },
  };
}

/** Fisher–Yates shuffle in place (same walk as Go's rand.Shuffle: from the end down). */
export function shuffleInPlace<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = items[i] as T;
    items[i] = items[j] as T;
    items[j] = tmp;
  }
}
