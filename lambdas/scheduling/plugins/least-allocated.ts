import type { CycleState, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const LEAST_ALLOCATED_NAME = 'LeastAllocated' as const;

/**
 * kube-scheduler's default NodeResourcesFit scoring strategy, LeastAllocated
 * (CPU and memory, weight 1 each): the node with the most free capacity left
 * after placing the pod scores highest, which spreads pods out. Resources a
 * node does not model (infinite allocatable) are left out of the mean.
 */
export const leastAllocated: ScorePlugin = {
  name: LEAST_ALLOCATED_NAME,
  score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
    const cpu = freeShare(node.allocatableCpuMilli, node.requestedCpuMilli + pod.demand.cpuMilli);
    const memory = freeShare(node.allocatableMemoryBytes, node.requestedMemoryBytes + pod.demand.memoryBytes);
    const n = (Number.isNaN(cpu) ? 0 : 1) + (Number.isNaN(memory) ? 0 : 1);
    return n === 0 ? 0 : Math.floor(((Number.isNaN(cpu) ? 0 : cpu) + (Number.isNaN(memory) ? 0 : memory)) / n);
  },
};

/** Free share after placement, 0..100; NaN when the resource is not modelled. */
function freeShare(allocatable: number, requestedAfter: number): number {
  if (!Number.isFinite(allocatable)) return Number.NaN;
  if (allocatable <= 0 || requestedAfter > allocatable) return 0;
  return ((allocatable - requestedAfter) * MAX_NODE_SCORE) / allocatable;
}
