import type { Env } from '../config';
import { envDuration, envNumber, envOptionalString, isEnvSet } from '../config';
import type { ProfileOptions } from '../scheduling';

/** Everything the extender reads from its environment (documented in docs/extender.md). */
export interface ExtenderConfig {
  /** True when KUBECONFIG or CLUSTER_NAME is set: the extender may list nodes and pods. */
  readonly clusterAccess: boolean;
  readonly cacheTtlMs: number;
  readonly nodeLabelSelector: string | undefined;
  readonly basePath: string;
  readonly profile: ProfileOptions;
}

export const DEFAULT_CACHE_TTL_MS = 5_000;

export function extenderConfigFromEnv(env: Env): ExtenderConfig {
  const weight = (name: string, fallback: number) => envNumber(env, name, { default: fallback, min: 0, max: 100 });
  return {
    clusterAccess: isEnvSet(env, 'KUBECONFIG') || isEnvSet(env, 'CLUSTER_NAME'),
    cacheTtlMs: envDuration(env, 'EXTENDER_CACHE_TTL', { default: DEFAULT_CACHE_TTL_MS, minMs: 0, maxMs: 10 * 60_000 }),
    nodeLabelSelector: envOptionalString(env, 'EXTENDER_NODE_LABEL_SELECTOR'),
    basePath: envOptionalString(env, 'EXTENDER_BASE_PATH') ?? '',
    profile: {
      weights: {
        GpuScore: weight('EXTENDER_WEIGHT_GPU_SCORE', 2),
        GpuPacking: weight('EXTENDER_WEIGHT_PACKING', 1),
        NetworkLocality: weight('EXTENDER_WEIGHT_NETWORK_LOCALITY', 1),
      },
      gpuScore: {
        fitWeight: envNumber(env, 'EXTENDER_GPU_FIT_WEIGHT', { default: 0.7, min: 0, max: 1 }),
        utilizationWeight: envNumber(env, 'EXTENDER_GPU_UTILIZATION_WEIGHT', { default: 0.3, min: 0, max: 1 }),
        unknownUtilizationScore: envNumber(env, 'EXTENDER_UNKNOWN_UTILIZATION_SCORE', { default: 50, min: 0, max: 100 }),
      },
    },
  };
}
