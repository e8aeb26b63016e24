import { GPU_MILLI } from '../keys';
import type { Snapshot } from '../snapshot';
import type { ShapeSample, WorkloadShape } from './workload-shapes';
import { typicalShapes } from './workload-shapes';

/** How the typical shapes are derived from a snapshot's bound pods. */
export interface ShapeDerivation {
  /** Share of bound pods the derived shapes must cover (default 0.95). */
  readonly coverage?: number;
  /**
   * Pseudo-pods counted with the bound ones when shapes are derived from a
   * short history: on a new cluster they say "jobs come in 1, 2, 4 and 8
   * GPUs", which keeps big nodes whole where the learnt shapes have nothing
   * to say yet.
   * @default PRIOR_SHAPES (1, 2, 4 and 8 whole GPUs)
   */
  readonly prior?: readonly ShapeSample[];
  /**
   * The prior is used while fewer GPU pods than this are bound; after that
   * the cluster's own workload alone decides. Measured on the openb trace
   * (10 seeds, alloc at 130 %): kept for 16 pods it costs 0.04 (default) and
   * 0.08 (gpuspec33) points, since its pseudo-pods outrank the trace's rare
   * shapes at the coverage cut; for the first pod only, 0.01, which is within
   * the seed-to-seed noise of that change (docs/simulator.md).
   * @default 1 (a cluster with no GPU pod bound yet)
   */
  readonly priorUntilPods?: number;
}

/** The prior of typical shapes: one pseudo-pod each of 1, 2, 4 and 8 whole GPUs, no CPU. */
export const PRIOR_SHAPES: readonly ShapeSample[] = Object.freeze(
  [1, 2, 4, 8].map((gpuCount) => Object.freeze({ cpuMilli: 0, gpuCount, gpuMilli: GPU_MILLI })),
);

/**
 * The typical shapes of the GPU pods bound in a snapshot, as the
 * fragmentation score derives them when no shapes are given. GPU pods only:
 * a real cluster runs far more CPU-only pods (system daemons, services) than
 * GPU pods, and counted as shapes they push every GPU shape out of the
 * typical set, which flattens the score to a tie. In device terms of the node
 * each pod runs on, so a time-sliced replica is the share of a GPU it is, not
 * a whole GPU.
 */
export function snapshotShapes(snapshot: Snapshot, options: ShapeDerivation = {}): WorkloadShape[] {
  const prior = options.prior ?? PRIOR_SHAPES;
  const gpuPods = snapshot.pods.filter((p) => p.demand.gpuCount > 0);
  return typicalShapes(
    gpuPods
      .map((p): ShapeSample => {
        const node = snapshot.getNode(p.nodeName);
        const gpuCount = node === undefined ? p.demand.gpuCount : node.deviceCountOf(p.demand);
        const gpuMilli = node === undefined ? p.demand.gpuMilli : node.deviceMilliOf(p.demand);
        return { cpuMilli: p.demand.cpuMilli, gpuCount, gpuMilli, memoryBytes: p.demand.memoryBytes };
      })
      .filter((shape) => shape.gpuCount > 0)
      .concat(gpuPods.length < (options.priorUntilPods ?? 1) ? prior : []),
    options.coverage ?? 0.95,
  );
}
