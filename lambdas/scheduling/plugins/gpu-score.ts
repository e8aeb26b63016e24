import type { CycleState, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const GPU_SCORE_NAME = 'GpuScore' as const;

export interface GpuScoreOptions {
  /** Weight of "free GPUs just above the request" (the seed's 0.7). */
  readonly fitWeight?: number;
  /** Weight of "low GPU utilization" (the seed's 0.3). */
  readonly utilizationWeight?: number;
  /** Utilization score used when the node has no utilization annotation (default 50: neutral, neither idle nor busy). */
  readonly unknownUtilizationScore?: number;
}

/**
 * The seed's GPU score, fixed to use FREE GPUs: a node whose free GPUs are
 * just above the request scores high (100 for an exact fit, 100/(1+slack)
 * otherwise), blended with 100 − utilization. Unknown utilization is scored
 * as neutral rather than as idle, so a node the reconciler has not measured
 * yet is not preferred over a measured idle one.
 */
export function createGpuScore(options: GpuScoreOptions = {}): ScorePlugin {
  const fitWeight = options.fitWeight ?? 0.7;
  const utilizationWeight = options.utilizationWeight ?? 0.3;
  const unknown = options.unknownUtilizationScore ?? 50;
  const sum = fitWeight + utilizationWeight;
  if (!(fitWeight >= 0 && utilizationWeight >= 0 && sum > 0)) throw new Error(`${GPU_SCORE_NAME} weights must be >= 0 and not both 0`);
  return {
    name: GPU_SCORE_NAME,
    score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
      if (pod.demand.gpuCount <= 0) return 0;
      // fitScore is always finite, so with no weight it adds exactly 0 (the profiles' default).
      const fit = fitWeight === 0 ? 0 : fitScore(node, node.deviceCountOf(pod.demand), node.deviceMilliOf(pod.demand));
      const utilization = node.gpuUtilization === undefined ? unknown : MAX_NODE_SCORE - node.gpuUtilization;
      return (fit * fitWeight + utilization * utilizationWeight) / sum;
    },
  };
}

function fitScore(node: NodeInfo, count: number, milli: number): number {
  if (milli >= GPU_MILLI || count > 1) {
    const slack = node.devicesWithFree(Math.min(milli, GPU_MILLI)) - count;
    return slack < 0 ? 0 : MAX_NODE_SCORE / (1 + slack);
  }
  // A fractional share: the tightest device that still fits decides.
  let best = Number.POSITIVE_INFINITY;
  for (const free of node.devices) if (free >= milli && free < best) best = free;
  if (best === Number.POSITIVE_INFINITY) return 0;
  return MAX_NODE_SCORE * (1 - (best - milli) / GPU_MILLI);
}

export const gpuScore: ScorePlugin = createGpuScore();
