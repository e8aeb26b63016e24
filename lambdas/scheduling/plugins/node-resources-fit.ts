import type { CycleState, FilterPlugin, FilterStatus } from '../framework';
import { PASS, reject } from '../framework';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const NODE_RESOURCES_FIT_NAME = 'NodeResourcesFit' as const;

/**
 * CPU, memory and pod-count fit, as kube-scheduler's in-tree NodeResourcesFit
 * does it. The extender profile leaves this out (the scheduler already ran it
 * before calling us); the simulator profile needs it. GPUs are GpuFit's job.
 */
export const nodeResourcesFit: FilterPlugin = {
  name: NODE_RESOURCES_FIT_NAME,
  filter(_state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus {
    if (node.pods.length + 1 > node.allocatablePods) return reject('TooManyPods');
    const { cpuMilli, memoryBytes } = pod.demand;
    if (cpuMilli > 0 && node.requestedCpuMilli + cpuMilli > node.allocatableCpuMilli) {
      return reject('InsufficientCpu', `requested ${cpuMilli}m, free ${node.allocatableCpuMilli - node.requestedCpuMilli}m`, cpuMilli > node.allocatableCpuMilli);
    }
    if (memoryBytes > 0 && node.requestedMemoryBytes + memoryBytes > node.allocatableMemoryBytes) {
      return reject('InsufficientMemory', `requested ${memoryBytes} bytes, free ${node.allocatableMemoryBytes - node.requestedMemoryBytes} bytes`, memoryBytes > node.allocatableMemoryBytes);
    }
    return PASS;
  },
};
