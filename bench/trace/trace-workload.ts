import type { TracePod } from './trace-csv';
import type { Rng } from './seeded-rng';
import { shuffleInPlace } from './seeded-rng';

/** Total GPU milli a pod asks for (num_gpu × gpu_milli). */
export function podGpuMilli(pod: TracePod): number {
  return pod.numGpu * pod.gpuMilli;
}

export interface WorkloadOptions {
  /** Target requested GPU as a multiple of cluster GPU capacity (paper: 1.3). */
  readonly targetRatio: number;
  /** Cluster GPU capacity in milli (GPUs × 1000). */
  readonly capacityGpuMilli: number;
}

/**
 * The paper's arrival sequence: pods sorted by name, shuffled with the seeded
 * RNG, then pods sampled with replacement (same RNG, from the name-sorted
 * list) appended until the next sample would push requested GPU above
 * targetRatio × capacity. A trace that already asks for more is trimmed by
 * removing random pods (the paper's "tune down"): the default and gpuspec33
 * lists never need it, a list that asks for more GPUs than 1.3 × the
 * cluster does (tested with a small fixture).
 */
export function buildArrivalSequence(pods: readonly TracePod[], rng: Rng, options: WorkloadOptions): TracePod[] {
  if (pods.length === 0) return [];
  const sorted = [...pods].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sequence = [...sorted];
  shuffleInPlace(sequence, rng);
  const target = options.targetRatio * options.capacityGpuMilli;
  let requested = sequence.reduce((sum, p) => sum + podGpuMilli(p), 0);

  while (requested > target && sequence.length > 0) {
    const [removed] = sequence.splice(rng.int(sequence.length), 1);
    requested -= removed ? podGpuMilli(removed) : 0;
  }
  for (let clone = 0; requested < target; clone++) {
    const sample = sorted[rng.int(sorted.length)] as TracePod;
    if (requested + podGpuMilli(sample) > target) break;
    requested += podGpuMilli(sample);
    sequence.push({ ...sample, name: `${sample.name}-clone-${clone}` });
  }
  return sequence;
}

/**
 * Records GPU allocation (allocated milli / capacity milli, in percent) each
 * time the GPU requested by arrived pods crosses another whole percent of
 * capacity. Arrived counts every pod that was offered, scheduled or not.
 */
export class AllocationCheckpoints {
  private arrived = 0;
  private nextPercent = 1;
  private readonly values = new Map<number, number>();

  constructor(
    private readonly capacityGpuMilli: number,
    private readonly maxPercent: number,
  ) {
    if (capacityGpuMilli <= 0) throw new RangeError('cluster has no GPU capacity');
  }

  /** Call after each pod is offered: its request and the cluster's allocated GPU milli after placement. */
  record(requestedGpuMilli: number, allocatedGpuMilli: number): void {
    this.arrived += requestedGpuMilli;
    while (this.nextPercent <= this.maxPercent && this.arrived * 100 >= this.nextPercent * this.capacityGpuMilli) {
      this.values.set(this.nextPercent, (allocatedGpuMilli / this.capacityGpuMilli) * 100);
      this.nextPercent++;
    }
  }

  /**
   * Closes the run. The sequence stops just short of the target, so the last
   * checkpoint is filled from the final state when arrivals round to it (the
   * paper's analysis rounds arrived percent to the nearest integer).
   */
  finish(allocatedGpuMilli: number): ReadonlyMap<number, number> {
    while (this.nextPercent <= this.maxPercent && this.arrived * 100 >= (this.nextPercent - 0.5) * this.capacityGpuMilli) {
      this.values.set(this.nextPercent, (allocatedGpuMilli / this.capacityGpuMilli) * 100);
      this.nextPercent++;
    }
    return this.values;
  }
}
