import { modelTokens } from '../gpu-model';
import { GPU_MILLI } from '../keys';
import type { WorkloadShape } from './workload-shapes';

/**
 * GPU shapes that differ only in CPU and memory, sorted by CPU, with
 * cumulative sums of weight, weight × CPU and weight × memory.
 */
export interface ShapeGroup {
  readonly milli: number;
  readonly count: number;
  readonly modelTokens: readonly (readonly string[])[] | undefined;
  readonly cpus: Float64Array;
  /** Each shape's memory (parallel to cpus), and the most any of the first i + 1 asks. */
  readonly memories: Float64Array;
  readonly mostMemoryUpTo: Float64Array;
  readonly cumulative: Float64Array;
  readonly cumulativeCpu: Float64Array;
  readonly cumulativeMemory: Float64Array;
}

/**
 * The shapes grouped by their GPU part (count, share, models), weights
 * renormalised over all shapes: the fragment of a node depends on the GPU
 * part, and CPU and memory only decide which of a group's shapes still fit.
 * The CPU-sorted cumulative sums answer that with one binary search; only
 * where memory is short for some of those shapes are they summed one by one.
 */
export function shapeGroups(shapes: readonly WorkloadShape[]): ShapeGroup[] {
  const total = shapes.reduce((sum, s) => sum + Math.max(0, s.weight), 0);
  const byGroup = new Map<string, { shape: WorkloadShape; entries: { cpu: number; memory: number; weight: number }[] }>();
  for (const shape of shapes) {
    if (shape.gpuCount <= 0 || !(shape.weight > 0) || total === 0) continue;
    const milli = Math.min(shape.gpuMilli, GPU_MILLI);
    const key = `${shape.gpuCount}|${milli}|${(shape.gpuModels ?? []).join('|')}`;
    let group = byGroup.get(key);
    if (group === undefined) byGroup.set(key, (group = { shape, entries: [] }));
    group.entries.push({ cpu: shape.cpuMilli, memory: shape.memoryBytes ?? 0, weight: shape.weight / total });
  }
  return [...byGroup.values()].map(({ shape, entries }) => {
    entries.sort((a, b) => a.cpu - b.cpu);
    let most = 0;
    return {
      milli: Math.min(shape.gpuMilli, GPU_MILLI),
      count: shape.gpuCount,
      modelTokens: shape.gpuModels && shape.gpuModels.length > 0 ? shape.gpuModels.map(modelTokens) : undefined,
      cpus: Float64Array.from(entries, (e) => e.cpu),
      memories: Float64Array.from(entries, (e) => e.memory),
      mostMemoryUpTo: Float64Array.from(entries, (e) => (most = Math.max(most, e.memory))),
      cumulative: runningSum(entries, (e) => e.weight),
      cumulativeCpu: runningSum(entries, (e) => e.weight * e.cpu),
      cumulativeMemory: runningSum(entries, (e) => e.weight * e.memory),
    };
  });
}

function runningSum<T>(entries: readonly T[], term: (entry: T) => number): Float64Array {
  let running = 0;
  return Float64Array.from(entries, (e) => (running += term(e)));
}

/** How many of the group's shapes (sorted by CPU) fit in cpuLeft. */
function fittingEntries(group: ShapeGroup, cpuLeft: number): number {
  const { cpus } = group;
  let lo = 0;
  let hi = cpus.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cpus[mid] ?? 0) <= cpuLeft) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One of the group's cumulative sums, over the shapes that fit in cpuLeft and memoryLeft. */
function sumOfFitting(group: ShapeGroup, cumulative: Float64Array, cpuLeft: number, memoryLeft: number): number {
  const n = fittingEntries(group, cpuLeft);
  if (n === 0) return 0;
  if ((group.mostMemoryUpTo[n - 1] ?? 0) <= memoryLeft) return cumulative[n - 1] ?? 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if ((group.memories[i] ?? 0) <= memoryLeft) sum += (cumulative[i] ?? 0) - (i === 0 ? 0 : (cumulative[i - 1] ?? 0));
  }
  return sum;
}

/** Total weight of the group's shapes that fit in cpuLeft and memoryLeft. */
export function weightUpTo(group: ShapeGroup, cpuLeft: number, memoryLeft: number): number {
  return sumOfFitting(group, group.cumulative, cpuLeft, memoryLeft);
}

/** Σ weight × CPU of the group's shapes that fit in cpuLeft and memoryLeft. */
export function cpuUpTo(group: ShapeGroup, cpuLeft: number, memoryLeft: number): number {
  return sumOfFitting(group, group.cumulativeCpu, cpuLeft, memoryLeft);
}

/** Σ weight × memory of the group's shapes that fit in cpuLeft and memoryLeft. */
export function memoryUpTo(group: ShapeGroup, cpuLeft: number, memoryLeft: number): number {
  return sumOfFitting(group, group.cumulativeMemory, cpuLeft, memoryLeft);
}
