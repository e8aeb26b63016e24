import type { CycleState, Plugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

/**
 * kube-scheduler's default NodeResourcesFit scoring strategy, LeastAllocated
 * (CPU and memory, weight 1 each): the node with the most free capacity left
 * after placing the pod scores highest, which spreads pods out. Resources a
 * node does not model (infinite allocatable) are left out of the mean.
 */
export const leastAllocated: Plugin = {
  name: 'LeastAllocated',
  score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
    let sum = 0;
    let n = 0;
    const part = (allocatable: number, requestedAfter: number): void => {
      if (!Number.isFinite(allocatable)) return;
      n++;
      if (allocatable > 0 && requestedAfter <= allocatable) sum += ((allocatable - requestedAfter) * MAX_NODE_SCORE) / allocatable;
    };
    part(node.allocatableCpuMilli, node.requestedCpuMilli + pod.demand.cpuMilli);
    part(node.allocatableMemoryBytes, node.requestedMemoryBytes + pod.demand.memoryBytes);
    return n === 0 ? 0 : Math.floor(sum / n);
  },
};
