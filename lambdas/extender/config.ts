import type { Env } from '../env';
import { envDuration, envInt, envNumber, envOptionalString, isEnvSet } from '../env';
import type { GpuScoreOptions, ProfileOptions, ScorePluginName } from '../scheduling';
import { DEFAULT_DRAIN_MARGIN_MS, DEFAULT_WEIGHTS } from '../scheduling';
import { DEFAULT_LIST_PAGE_SIZE } from '../cluster-state/kubernetes-cluster-source';

/** Everything the extender reads from its environment (documented in docs/extender.md). */
export interface ExtenderConfig {
  /** True when CLUSTER_NAME is set: the extender lists nodes and pods of that EKS cluster (local hosts inject a connection instead, wiring.ts). */
  readonly clusterAccess: boolean;
  readonly cacheTtlMs: number;
  /** Stale-while-revalidate window after the TTL; 0 = off. */
  readonly cacheMaxStaleMs: number;
  readonly listPageSize: number;
  readonly nodeLabelSelector: string | undefined;
  readonly basePath: string;
  readonly profile: ProfileOptions;
}

export const DEFAULT_CACHE_TTL_MS = 5_000;

/** EXTENDER_WEIGHT_<PLUGIN>, e.g. GpuScore → EXTENDER_WEIGHT_GPU_SCORE. */
export function weightVariable(plugin: string): string {
  return `EXTENDER_WEIGHT_${plugin.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/**
 * Profile tuning from the environment. Only variables that are set are passed
 * on; everything else keeps the library's defaults (one source of truth).
 */
function profileOptions(env: Env): ProfileOptions {
  const weights: Partial<Record<ScorePluginName, number>> = {};
  for (const plugin of Object.keys(DEFAULT_WEIGHTS) as ScorePluginName[]) {
    const variable = weightVariable(plugin);
    if (isEnvSet(env, variable)) weights[plugin] = envNumber(env, variable, { min: 0, max: 1000 });
  }
  const gpuScore: { -readonly [K in keyof GpuScoreOptions]: GpuScoreOptions[K] } = {};
  if (isEnvSet(env, 'EXTENDER_GPU_FIT_WEIGHT')) gpuScore.fitWeight = envNumber(env, 'EXTENDER_GPU_FIT_WEIGHT', { min: 0, max: 1 });
  if (isEnvSet(env, 'EXTENDER_GPU_UTILIZATION_WEIGHT')) {
    gpuScore.utilizationWeight = envNumber(env, 'EXTENDER_GPU_UTILIZATION_WEIGHT', { min: 0, max: 1 });
  }
  if (isEnvSet(env, 'EXTENDER_UNKNOWN_UTILIZATION_SCORE')) {
    gpuScore.unknownUtilizationScore = envNumber(env, 'EXTENDER_UNKNOWN_UTILIZATION_SCORE', { min: 0, max: 100 });
  }
  // The stack sets it from extender.capacityBlockDrainMarginMinutes (cdk/app-config).
  const drainMarginMs = envDuration(env, 'EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN', { default: DEFAULT_DRAIN_MARGIN_MS, minMs: 0, maxMs: 24 * 3_600_000 });
  return { weights, gpuScore, capacityBlockEnd: { drainMarginMs } };
}

export function extenderConfigFromEnv(env: Env): ExtenderConfig {
  return {
    clusterAccess: isEnvSet(env, 'CLUSTER_NAME'),
    cacheTtlMs: envDuration(env, 'EXTENDER_CACHE_TTL', { default: DEFAULT_CACHE_TTL_MS, minMs: 0, maxMs: 10 * 60_000 }),
    cacheMaxStaleMs: envDuration(env, 'EXTENDER_CACHE_MAX_STALE', { default: 0, minMs: 0, maxMs: 10 * 60_000 }),
    listPageSize: envInt(env, 'EXTENDER_LIST_PAGE_SIZE', { default: DEFAULT_LIST_PAGE_SIZE, min: 1, max: 10_000 }),
    nodeLabelSelector: envOptionalString(env, 'EXTENDER_NODE_LABEL_SELECTOR'),
    basePath: envOptionalString(env, 'EXTENDER_BASE_PATH') ?? '',
    profile: profileOptions(env),
  };
}
