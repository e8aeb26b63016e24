import { GPU_MILLI } from '../keys';

/**
 * A pod shape the cluster typically runs, with its share of the workload.
 * The fragmentation score measures how much free GPU each node could still
 * give to these shapes.
 */
export interface WorkloadShape {
  readonly cpuMilli: number;
  readonly gpuCount: number;
  /** Share of each GPU, 1..1000; ignored when gpuCount is 0. */
  readonly gpuMilli: number;
  /** Allowed GPU models as written (any spelling gpu-model.ts understands); undefined = any. */
  readonly gpuModels?: readonly string[];
  /**
   * Memory the shape asks for: the least any pod counted in it asks, so a
   * node is called too full for the shape only when none of them would fit.
   * Undefined (or 0): none.
   */
  readonly memoryBytes?: number;
  /** Relative frequency; shapes are renormalised to sum to 1. */
  readonly weight: number;
}

export interface ShapeSample {
  readonly cpuMilli: number;
  readonly gpuCount: number;
  readonly gpuMilli: number;
  readonly gpuModels?: readonly string[] | undefined;
  /** Memory the pod asks for; undefined = none. */
  readonly memoryBytes?: number | undefined;
}

function shapeKey(s: ShapeSample): string {
  const milli = s.gpuCount > 0 ? Math.min(s.gpuMilli, GPU_MILLI) : 0;
  return `${s.cpuMilli}|${s.gpuCount}|${milli}|${(s.gpuModels ?? []).join('|')}`;
}

/**
 * The most frequent shapes that together cover `coverage` of the samples
 * (the FGD paper's "typical pods": count identical requests, keep the most
 * popular until 95 % of pods are covered, renormalise). Deterministic: equal
 * counts are ordered by their key. Memory is not part of a shape's identity
 * (the paper's shapes are CPU and GPU): a shape carries the least memory of
 * the samples counted in it.
 */
export function typicalShapes(samples: Iterable<ShapeSample>, coverage = 0.95): WorkloadShape[] {
  if (!(coverage > 0 && coverage <= 1)) throw new RangeError(`coverage must be in (0, 1], got ${coverage}`);
  const counts = new Map<string, { sample: ShapeSample; count: number; memoryBytes: number }>();
  let total = 0;
  for (const sample of samples) {
    const key = shapeKey(sample);
    const entry = counts.get(key);
    const memoryBytes = sample.memoryBytes ?? 0;
    if (entry) {
      entry.count++;
      entry.memoryBytes = Math.min(entry.memoryBytes, memoryBytes);
    } else {
      counts.set(key, { sample, count: 1, memoryBytes });
    }
    total++;
  }
  const ranked = [...counts.entries()].sort(([ka, a], [kb, b]) => b.count - a.count || (ka < kb ? -1 : ka > kb ? 1 : 0));
  const kept: { sample: ShapeSample; count: number; memoryBytes: number }[] = [];
  let covered = 0;
  for (const [, entry] of ranked) {
    if (covered >= coverage * total) break;
    covered += entry.count;
    kept.push(entry);
  }
  return kept.map(({ sample, count, memoryBytes }) => ({
    cpuMilli: sample.cpuMilli,
    gpuCount: sample.gpuCount,
    gpuMilli: sample.gpuCount > 0 ? Math.min(sample.gpuMilli, GPU_MILLI) : 0,
    ...(sample.gpuModels && sample.gpuModels.length > 0 ? { gpuModels: [...sample.gpuModels] } : {}),
    ...(memoryBytes > 0 ? { memoryBytes } : {}),
    weight: count / covered,
  }));
}
