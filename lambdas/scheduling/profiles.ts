import type { WeightedPlugin } from './framework';
import { createFragmentationScore } from './plugins/fragmentation';
import type { FragmentationOptions } from './plugins/fragmentation';
import { createGpuScore } from './plugins/gpu-score';
import type { GpuScoreOptions } from './plugins/gpu-score';
import { gpuFit } from './plugins/gpu-fit';
import { gpuPacking } from './plugins/gpu-packing';
import { networkLocality } from './plugins/network-locality';
import { nodeResourcesFit } from './plugins/node-resources-fit';
import { Profile } from './profile';

export interface ProfileOptions {
  /** Weight of each score plugin by name; 0 disables it. */
  readonly weights?: Readonly<Partial<Record<'GpuScore' | 'GpuPacking' | 'NetworkLocality' | 'Fragmentation', number>>>;
  readonly gpuScore?: GpuScoreOptions;
  /** Workload shapes for the fragmentation score; by default derived from the pods bound in the snapshot. */
  readonly fragmentation?: FragmentationOptions;
}

/**
 * Fragmentation (FGD) leads: on the openb trace it strands the fewest GPUs
 * (docs/simulator.md). GpuScore carries utilization and outweighs small
 * fragmentation differences; locality outweighs them for pods that name
 * peers. GpuPacking stays available but off: as a tie-breaker it undoes FGD's
 * choices (−2 points of allocation on the trace).
 */
export const DEFAULT_WEIGHTS = { GpuScore: 1, GpuPacking: 0, NetworkLocality: 5, Fragmentation: 20 } as const;

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
    { plugin: createGpuScore({ ...DEFAULT_GPU_SCORE, ...options.gpuScore }), weight: weights.GpuScore },
    { plugin: gpuPacking, weight: weights.GpuPacking },
    { plugin: networkLocality, weight: weights.NetworkLocality },
    { plugin: createFragmentationScore(options.fragmentation), weight: weights.Fragmentation },
  ];
}

/** What the extender runs: kube-scheduler has already checked CPU and memory in-tree. */
export function createExtenderProfile(options: ProfileOptions = {}): Profile {
  return new Profile({ name: 'extender', filters: [gpuFit], scorers: scorers(options) });
}

/** What the simulator runs: the scheduler's resource fit plus the extender's plugins. */
export function createSimulatorProfile(options: ProfileOptions = {}): Profile {
  return new Profile({ name: 'simulator', filters: [nodeResourcesFit, gpuFit], scorers: scorers(options) });
}
