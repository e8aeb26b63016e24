import type { CycleState, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const GPU_PACKING_NAME = 'GpuPacking' as const;

/**
 * Best-fit packing across nodes: score = share of the node's GPU capacity in
 * use after placing the pod. Partly used nodes fill up first, so whole
 * multi-GPU nodes stay free for jobs that need all of them.
 */
export const gpuPacking: ScorePlugin = {
  name: GPU_PACKING_NAME,
  score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
    const gpuCount = node.deviceCountOf(pod.demand);
    const gpuMilli = node.deviceMilliOf(pod.demand);
    const capacity = node.gpuCount * GPU_MILLI;
    if (gpuCount <= 0 || capacity === 0) return 0;
    const usedAfter = capacity - node.freeGpuMilli + gpuCount * Math.min(gpuMilli, GPU_MILLI);
    return (MAX_NODE_SCORE * Math.min(usedAfter, capacity)) / capacity;
  },
};
