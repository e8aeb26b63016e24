import type { TracePod } from './trace-csv';
import type { Rng } from './seeded-rng';

/**
 * Held-out workloads generated from a pod list (the openb default list): the
 * same tasks, resampled so one kind of task takes a different share. The
 * public trace has such lists (cpu050..cpu250, gpushare20..100,
 * multigpu20..50); the benchmark's copy of the trace lacks them, so these stand in for them,
 * made by our own stated procedure rather than the authors' unpublished one,
 * and named `gen-…` so they are never mistaken for the public files. The
 * profile's defaults were not chosen on them.
 *
 *   gen-cpuNNN        CPU-only tasks: NNN % of the source's count (others as they are)
 *   gen-shareNN       fractional-GPU tasks: NN % of the GPU tasks (by count)
 *   gen-multigpuNN    multi-GPU tasks: NN % of the GPU tasks' requested GPU
 */
export const VARIANT_PATTERN = /^gen-(cpu|share|multigpu)(\d{1,3})$/;

export type VariantKind = 'cpu' | 'share' | 'multigpu';

export interface VariantSpec {
  readonly name: string;
  readonly kind: VariantKind;
  /** Percent: of the source's CPU-only count (cpu), of GPU tasks (share), of GPU demand (multigpu). */
  readonly percent: number;
}

/** The spec a `gen-…` name asks for, or undefined when the name is not one; a RangeError for an impossible percent. */
export function parseVariantName(name: string): VariantSpec | undefined {
  const match = VARIANT_PATTERN.exec(name);
  if (match === null) return undefined;
  const kind = match[1] as VariantKind;
  const percent = Number(match[2]);
  const max = kind === 'cpu' ? 999 : 100;
  if (percent > max) throw new RangeError(`${name}: ${kind} takes 0..${max} %, got ${percent}`);
  return { name, kind, percent };
}

type TaskClass = 'cpu' | 'share' | 'single' | 'multi';

function classOf(pod: TracePod): TaskClass {
  if (pod.numGpu === 0) return 'cpu';
  if (pod.numGpu > 1) return 'multi';
  return pod.gpuMilli < 1000 ? 'share' : 'single';
}

const gpuDemand = (pod: TracePod): number => pod.numGpu * pod.gpuMilli;

/** `count` tasks drawn with replacement from `from` (its order, then the rng), renamed so names stay unique. */
function draw(from: readonly TracePod[], count: number, rng: Rng, tag: string): TracePod[] {
  if (count > 0 && from.length === 0) throw new RangeError(`the source list has no ${tag} task to resample`);
  return Array.from({ length: count }, (_, i) => {
    const pod = from[rng.int(from.length)] as TracePod;
    return { ...pod, name: `${pod.name}-${tag}-${i}` };
  });
}

/**
 * The variant of `source`: every class of task not named keeps its tasks;
 * the named share is reached by resampling (with replacement, seeded) the
 * named class and, for share and multigpu, the whole-GPU single tasks it
 * trades places with, keeping the number of GPU tasks (share) or the GPU
 * demand (multigpu) of the source.
 */
export function generateVariant(source: readonly TracePod[], spec: VariantSpec, rng: Rng): TracePod[] {
  const sorted = [...source].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const byClass: Record<TaskClass, TracePod[]> = { cpu: [], share: [], single: [], multi: [] };
  for (const pod of sorted) byClass[classOf(pod)].push(pod);
  const { cpu, share, single, multi } = byClass;
  const fraction = spec.percent / 100;
  switch (spec.kind) {
    case 'cpu':
      return [...draw(cpu, Math.round(cpu.length * fraction), rng, 'cpu'), ...share, ...single, ...multi];
    case 'share': {
      const gpuTasks = share.length + single.length + multi.length;
      const shares = Math.round(gpuTasks * fraction);
      const rest = gpuTasks - shares;
      // The whole-GPU tasks keep their mix of single and multi-GPU.
      const multiCount = Math.round((rest * multi.length) / Math.max(1, single.length + multi.length));
      return [...cpu, ...draw(share, shares, rng, 'share'), ...draw(single, rest - multiCount, rng, 'single'), ...draw(multi, multiCount, rng, 'multi')];
    }
    case 'multigpu': {
      const demand = [...share, ...single, ...multi].reduce((sum, p) => sum + gpuDemand(p), 0);
      const meanOf = (pods: readonly TracePod[]) => pods.reduce((sum, p) => sum + gpuDemand(p), 0) / Math.max(1, pods.length);
      const multiCount = Math.round((demand * fraction) / Math.max(1, meanOf(multi)));
      const otherDemand = demand * (1 - fraction);
      const others = [...share, ...single];
      const otherCount = Math.round(otherDemand / Math.max(1, meanOf(others)));
      return [...cpu, ...draw(others, otherCount, rng, 'gpu'), ...draw(multi, multiCount, rng, 'multi')];
    }
  }
}

/** The CSV the trace reader takes (the columns of the public multi-GPU lists, plus gpu_spec). */
export function toPodCsv(pods: readonly TracePod[]): string {
  const lines = ['name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec'];
  for (const p of pods) lines.push([p.name, p.cpuMilli, p.memoryMiB, p.numGpu, p.gpuMilli, p.gpuSpec.join('|')].join(','));
  return `${lines.join('\n')}\n`;
}
