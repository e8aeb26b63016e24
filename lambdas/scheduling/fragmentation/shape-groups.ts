import { modelTokens } from '../gpu-model';
import { GPU_MILLI } from '../keys';
import type { WorkloadShape } from './workload-shapes';

/** GPU shapes that differ only in CPU, CPU thresholds sorted with cumulative weight. */
export interface ShapeGroup {
  readonly milli: number;
  readonly count: number;
  readonly modelTokens: readonly (readonly string[])[] | undefined;
  readonly cpus: Float64Array;
  readonly cumulative: Float64Array;
  readonly cumulativeCpu: Float64Array;
}

/**
 * The shapes grouped by their GPU part (count, share, models), weights
 * renormalised over all shapes: the fragment of a node depends on the GPU
 * part, and CPU only decides which of a group's shapes still fit, which the
 * sorted cumulative sums answer with one binary search.
 */
export function shapeGroups(shapes: readonly WorkloadShape[]): ShapeGroup[] {
  const total = shapes.reduce((sum, s) => sum + Math.max(0, s.weight), 0);
  const byGroup = new Map<string, { shape: WorkloadShape; entries: { cpu: number; weight: number }[] }>();
  for (const shape of shapes) {
    if (shape.gpuCount <= 0 || !(shape.weight > 0) || total === 0) continue;
    const milli = Math.min(shape.gpuMilli, GPU_MILLI);
    const key = `${shape.gpuCount}|${milli}|${(shape.gpuModels ?? []).join('|')}`;
    let group = byGroup.get(key);
    if (group === undefined) byGroup.set(key, (group = { shape, entries: [] }));
    group.entries.push({ cpu: shape.cpuMilli, weight: shape.weight / total });
  }
  return [...byGroup.values()].map(({ shape, entries }) => {
    entries.sort((a, b) => a.cpu - b.cpu);
    const cumulative = new Float64Array(entries.length);
    let running = 0;
    entries.forEach((e, i) => (cumulative[i] = running += e.weight));
    const cumulativeCpu = new Float64Array(entries.length);
    let runningCpu = 0;
    entries.forEach((e, i) => (cumulativeCpu[i] = runningCpu += e.weight * e.cpu));
    return {
      milli: Math.min(shape.gpuMilli, GPU_MILLI),
      count: shape.gpuCount,
      modelTokens: shape.gpuModels && shape.gpuModels.length > 0 ? shape.gpuModels.map(modelTokens) : undefined,
      cpus: Float64Array.from(entries, (e) => e.cpu),
      cumulative,
      cumulativeCpu,
    };
  });
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

/** Total weight of the group's shapes whose CPU fits in cpuLeft. */
export function weightUpTo(group: ShapeGroup, cpuLeft: number): number {
  const n = fittingEntries(group, cpuLeft);
  return n === 0 ? 0 : (group.cumulative[n - 1] ?? 0);
}

/** Σ weight × CPU of the group's shapes whose CPU fits in cpuLeft. */
export function cpuUpTo(group: ShapeGroup, cpuLeft: number): number {
  const n = fittingEntries(group, cpuLeft);
  return n === 0 ? 0 : (group.cumulativeCpu[n - 1] ?? 0);
}
