import { MAX_NODE_SCORE } from '../framework';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';
import type { FragmentationModel } from './fragmentation-model';

/** A node's fragmentation score for one pod shape. */
export interface Scored {
  readonly score: number;
  /** Device for a fractional share; -1 = leave it to the default. */
  readonly device: number;
}

/** sigmoid(reduction / 1000 milli) on 0..100, truncated, as in the paper's FGD score. */
function toScore(reduction: number): number {
  return Math.trunc(MAX_NODE_SCORE / (1 + Math.exp(-reduction / GPU_MILLI)));
}

/**
 * How much placing a pod on a node lowers the node's fragment (`before`, the
 * fragment now), as a 0..100 score; for a fractional share of one GPU, the
 * device where it lowers it most. Keeps its scratch arrays between calls:
 * one instance per plugin, so a replay allocates nothing per node.
 */
export class PlacementScorer {
  private weights = new Float64Array(16);
  private scratch = new Int32Array(8);

  score(model: FragmentationModel, before: number, pod: PodRequirements, node: NodeInfo): Scored {
    const groups = model.groupsFor(node);
    const { cpuMilli, memoryBytes } = pod.demand;
    // In this node's device terms: a replica of a time-sliced GPU is a share of one device.
    const gpuCount = node.deviceCountOf(pod.demand);
    const gpuMilli = node.deviceMilliOf(pod.demand);
    const cpuAfter = node.allocatableCpuMilli - node.requestedCpuMilli - cpuMilli;
    const memoryAfter = node.allocatableMemoryBytes - node.requestedMemoryBytes - memoryBytes;
    if (this.weights.length < groups.length) this.weights = new Float64Array(groups.length * 2);
    const weightsAfter = model.weightsFor(groups, cpuAfter, memoryAfter, this.weights);
    const devices = node.devices;
    const terms = model.termsOf(node);
    if (this.scratch.length < devices.length) this.scratch = new Int32Array(devices.length);
    const after = this.scratch.subarray(0, devices.length);
    after.set(devices);

    if (gpuCount === 1 && gpuMilli < GPU_MILLI) {
      let best: Scored = { score: 0, device: -1 };
      for (let i = 0; i < devices.length; i++) {
        const free = devices[i] ?? 0;
        // Devices with the same free share give the same node state: the first one stands for all.
        if (free < gpuMilli || devices.indexOf(free) < i) continue;
        after[i] = free - gpuMilli;
        const score = toScore(before - model.fragmentWith(after, groups, weightsAfter, terms, cpuAfter, memoryAfter));
        after[i] = free;
        if (best.device < 0 || score > best.score) best = { score, device: i };
      }
      return best;
    }
    if (gpuCount > 0) {
      const need = Math.min(gpuMilli, GPU_MILLI);
      for (let i = 0, left = gpuCount; i < after.length && left > 0; i++) {
        if ((after[i] ?? 0) >= need) {
          after[i] = (after[i] ?? 0) - need;
          left--;
        }
      }
    }
    return { score: toScore(before - model.fragmentWith(after, groups, weightsAfter, terms, cpuAfter, memoryAfter)), device: -1 };
  }
}
