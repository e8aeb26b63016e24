import type { Rng } from '../trace/seeded-rng';

export type JobKind = 'multi-node' | 'single-node' | 'fractional';

/** One arrival: `pods` pods alike, each `gpus` GPUs of `gpuMilli` (1000 = whole). Times in minutes. */
export interface BenchJob {
  readonly id: number;
  readonly kind: JobKind;
  readonly arrival: number;
  readonly duration: number;
  readonly pods: number;
  readonly gpus: number;
  readonly gpuMilli: number;
}

export interface WorkloadOptions {
  readonly jobs: number;
  readonly totalGpus: number;
  /** Offered GPU-time over capacity; a little under 1 keeps a queue without letting it grow forever. */
  readonly load: number;
}

const exponential = (rng: Rng, mean: number, min: number, max: number) => Math.min(max, Math.max(min, -mean * Math.log(1 - rng.next())));

function pick<T>(rng: Rng, weighted: readonly (readonly [T, number])[]): T {
  let r = rng.next() * weighted.reduce((s, [, w]) => s + w, 0);
  for (const [value, weight] of weighted) {
    r -= weight;
    if (r < 0) return value;
  }
  return (weighted[weighted.length - 1] as readonly [T, number])[0];
}

/**
 * A seeded mix: 12 % multi-node training jobs of 2–32 whole 8-GPU nodes
 * (log-uniform, so small jobs are the most common; ~4 h each), 63 %
 * single-node pods of 1, 2, 4 or 8 GPUs (~2 h), 25 % fractional pods of a
 * quarter or half GPU (~1 h). Arrivals are a Poisson process whose rate makes
 * the offered GPU-time `load` × capacity.
 */
export function generateWorkload(options: WorkloadOptions, rng: Rng): BenchJob[] {
  const shapes = Array.from({ length: options.jobs }, () => {
    const kind = pick<JobKind>(rng, [['multi-node', 12], ['single-node', 63], ['fractional', 25]]);
    if (kind === 'multi-node') return { kind, pods: Math.round(2 ** (1 + 4 * rng.next())), gpus: 8, gpuMilli: 1000, duration: exponential(rng, 240, 30, 1440) };
    if (kind === 'single-node') return { kind, pods: 1, gpus: pick(rng, [[1, 40], [2, 25], [4, 20], [8, 15]]), gpuMilli: 1000, duration: exponential(rng, 120, 10, 720) };
    return { kind, pods: 1, gpus: 1, gpuMilli: pick(rng, [[250, 1], [500, 1]]), duration: exponential(rng, 60, 5, 360) };
  });
  const gpuMinutes = shapes.reduce((sum, s) => sum + (s.pods * s.gpus * s.gpuMilli * s.duration) / 1000, 0);
  const meanGap = gpuMinutes / shapes.length / (options.load * options.totalGpus);
  let clock = 0;
  return shapes.map((s, id) => {
    clock += exponential(rng, meanGap, 0, Number.POSITIVE_INFINITY);
    return { id, arrival: clock, ...s };
  });
}
