import type { WeightedPlugin } from './framework';
import { FRAGMENTATION_NAME, createFragmentationScore } from './plugins/fragmentation';
import type { FragmentationOptions } from './plugins/fragmentation';
import { GPU_SCORE_NAME, createGpuScore } from './plugins/gpu-score';
import type { GpuScoreOptions } from './plugins/gpu-score';
import { gpuFit } from './plugins/gpu-fit';
import { GPU_HEALTH_NAME, gpuHealth } from './plugins/gpu-health';
import { GPU_PACKING_NAME, gpuPacking } from './plugins/gpu-packing';
import { NETWORK_LOCALITY_NAME, networkLocality } from './plugins/network-locality';
import { nodeResourcesFit } from './plugins/node-resources-fit';
import { createCapacityBlockEnd, RESERVED_CAPACITY_NAME, reservedCapacity } from './plugins/capacity-reservation';
import type { CapacityBlockEndOptions } from './plugins/capacity-reservation';
import { Profile } from './profile';

/**
 * The score plugins the built-in profiles weigh. Their names are also the
 * user-facing weight keys (EXTENDER_WEIGHT_<PLUGIN>, the simulator's
 * --weights), so renaming a plugin is a breaking change there.
 */
export type ScorePluginName =
  | typeof GPU_SCORE_NAME
  | typeof GPU_PACKING_NAME
  | typeof NETWORK_LOCALITY_NAME
  | typeof FRAGMENTATION_NAME
  | typeof RESERVED_CAPACITY_NAME
  | typeof GPU_HEALTH_NAME;

export interface ProfileOptions {
  /** Weight of each score plugin by name; 0 disables it. */
  readonly weights?: Readonly<Partial<Record<ScorePluginName, number>>>;
  readonly gpuScore?: GpuScoreOptions;
  /** Workload shapes for the fragmentation score; by default derived from the pods bound in the snapshot. */
  readonly fragmentation?: FragmentationOptions;
  /** The Capacity Block filter's drain margin and clock. */
  readonly capacityBlockEnd?: CapacityBlockEndOptions;
}

/**
 * Fragmentation (FGD) leads: on the openb trace it strands the fewest GPUs
 * (docs/simulator.md). GpuScore carries utilization and outweighs small
 * fragmentation differences. GpuPacking stays available but off: as a
 * tie-breaker it undoes FGD's choices (−2 points of allocation on the trace).
 *
 * ReservedCapacity 5: a reserved node (0 or 100) leads an unreserved one by
 * 5 × 100 = 500 weighted points. Fragmentation (weight 20) scores the
 * sigmoid of the stranded GPU a placement saves, about 25 points per GPU near
 * its middle, so 500 points are 25 Fragmentation points, about one GPU of
 * expected stranding: at an equally good fit, or one within a GPU of it, the
 * reserved node wins; where an unreserved node strands a GPU or more less,
 * packing wins. Utilization (GpuScore, at most 1 × 100 = 100) never outweighs
 * a reservation. It skips pods whose feasible nodes are all reserved or none
 * is (no weight in their mean): without reservations nothing changes.
 *
 * NetworkLocality 170: adjacent locality levels are ≥ 15.5 points apart, so
 * one level is worth ≥ 170 × 15.5 = 2635 > 20 × 100 + 1 × 100 + 5 × 100 =
 * 2600, the most Fragmentation, GpuScore and ReservedCapacity together can
 * differ by: for a pod that names peers, a closer level always wins, and
 * within a level the others choose. It skips every other pod (no weight in
 * their mean), so their scale is Fragmentation 20 of 21 (of 26 where some
 * feasible nodes are reserved).
 *
 * GpuHealth 30: a degraded node loses 30 × 100 = 3000 > 2600, more than
 * Fragmentation, GpuScore and ReservedCapacity can make up together, so a
 * pod goes to a degraded node only when no healthy node fits it at the same
 * locality level. Across locality levels health and closeness are weighed
 * together (one level is worth ≥ 2635). It skips every cycle whose feasible
 * nodes are all healthy (or all degraded), so it changes nothing where no
 * health signal is set.
 */
export const DEFAULT_WEIGHTS = {
  [GPU_SCORE_NAME]: 1,
  [GPU_PACKING_NAME]: 0,
  [NETWORK_LOCALITY_NAME]: 170,
  [FRAGMENTATION_NAME]: 20,
  [RESERVED_CAPACITY_NAME]: 5,
  [GPU_HEALTH_NAME]: 30,
} as const satisfies Readonly<Record<ScorePluginName, number>>;

/**
 * GpuScore inside the profiles scores utilization only by default: its
 * "free GPUs just above the request" part is a packing preference that, even
 * as a tie-breaker, costs 0.5–1 point of allocation against Fragmentation's
 * choices on the trace, and Fragmentation already judges fit. Set
 * `gpuScore.fitWeight` to bring it back.
 */
export const DEFAULT_GPU_SCORE: GpuScoreOptions = { fitWeight: 0, utilizationWeight: 1 };

function scorers(options: ProfileOptions): WeightedPlugin[] {
  const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
  return [
    { plugin: createGpuScore({ ...DEFAULT_GPU_SCORE, ...options.gpuScore }), weight: weights[GPU_SCORE_NAME] },
    { plugin: gpuPacking, weight: weights[GPU_PACKING_NAME] },
    { plugin: networkLocality, weight: weights[NETWORK_LOCALITY_NAME] },
    { plugin: createFragmentationScore(options.fragmentation), weight: weights[FRAGMENTATION_NAME] },
    { plugin: reservedCapacity, weight: weights[RESERVED_CAPACITY_NAME] },
    { plugin: gpuHealth, weight: weights[GPU_HEALTH_NAME] },
  ];
}

/**
 * What the extender runs: kube-scheduler has already checked CPU and memory
 * in-tree. GpuHealth filters first, so a failing node is refused as
 * unresolvable (never a preemption candidate) whatever else it lacks.
 */
export function createExtenderProfile(options: ProfileOptions = {}): Profile {
  return new Profile({ name: 'extender', filters: [gpuHealth, gpuFit, createCapacityBlockEnd(options.capacityBlockEnd)], scorers: scorers(options) });
}

/** What the simulator runs: the scheduler's resource fit plus the extender's plugins. */
export function createSimulatorProfile(options: ProfileOptions = {}): Profile {
  return new Profile({ name: 'simulator', filters: [nodeResourcesFit, gpuHealth, gpuFit, createCapacityBlockEnd(options.capacityBlockEnd)], scorers: scorers(options) });
}
