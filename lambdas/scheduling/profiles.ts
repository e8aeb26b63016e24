import type { WeightedPlugin } from './framework';
import { createGpuScore } from './plugins/gpu-score';
import type { GpuScoreOptions } from './plugins/gpu-score';
import { gpuFit } from './plugins/gpu-fit';
import { gpuPacking } from './plugins/gpu-packing';
import { networkLocality } from './plugins/network-locality';
import { nodeResourcesFit } from './plugins/node-resources-fit';
import { Profile } from './profile';

export interface ProfileOptions {
  /** Weight of each score plugin by name; 0 disables it. */
  readonly weights?: Readonly<Partial<Record<'GpuScore' | 'GpuPacking' | 'NetworkLocality', number>>>;
  readonly gpuScore?: GpuScoreOptions;
}

export const DEFAULT_WEIGHTS = { GpuScore: 2, GpuPacking: 1, NetworkLocality: 1 } as const;

function scorers(options: ProfileOptions): WeightedPlugin[] {
  const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
  return [
    { plugin: createGpuScore(options.gpuScore), weight: weights.GpuScore },
    { plugin: gpuPacking, weight: weights.GpuPacking },
    { plugin: networkLocality, weight: weights.NetworkLocality },
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
