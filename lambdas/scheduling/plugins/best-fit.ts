import type { CycleState, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';
import { normalizeMinMax } from '../normalize-min-max';

export const BEST_FIT_NAME = 'BestFit' as const;

export interface BestFitOptions {
  /** CPU (millicores) that counts as "a full node" when weighing leftovers; the FGD paper's 128 cores. */
  readonly maxCpuMilli?: number;
  /** GPU (milli) that counts as "a full node"; the paper's 8 GPUs. */
  readonly maxGpuMilli?: number;
}

/**
 * BestFit as in the FGD paper's simulator (Weng et al., ATC'23): prefer the
 * node with the least CPU and GPU left over after placing the pod, each
 * leftover scaled by a full node's size and weighted 1/2. Scores are whole
 * numbers rescaled min–max to 0..100 across the feasible nodes, so close
 * nodes tie (and the scheduler breaks ties at random), as there.
 */
export function createBestFit(options: BestFitOptions = {}): ScorePlugin {
  const maxCpu = options.maxCpuMilli ?? 128_000;
  const maxGpu = options.maxGpuMilli ?? 8 * GPU_MILLI;
  return {
    name: BEST_FIT_NAME,
    score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
      const { cpuMilli, gpuCount, gpuMilli } = pod.demand;
      const cpuLeft = finiteOr(node.allocatableCpuMilli - node.requestedCpuMilli, maxCpu) - cpuMilli;
      const gpuLeft = node.freeGpuMilli - gpuCount * Math.min(gpuMilli, GPU_MILLI);
      const leftover = (cpuLeft / maxCpu) * 0.5 + (gpuLeft / maxGpu) * 0.5;
      return Math.trunc((1 - leftover) * MAX_NODE_SCORE);
    },
    normalizeScores(_state: CycleState, _pod: PodRequirements, scores: Float64Array): void {
      normalizeMinMax(scores);
    },
  };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

export const bestFit: ScorePlugin = createBestFit();
