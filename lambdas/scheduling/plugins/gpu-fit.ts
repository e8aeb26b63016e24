import type { CycleState, FilterStatus, Plugin } from '../framework';
import { PASS, reject, stateKey } from '../framework';
import { modelMatches } from '../gpu-model';
import { GPU_MILLI, NODE_LABEL } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

/** Per cycle: whether each distinct node model (by key) satisfies the pod's model list. */
const MODEL_MATCHES = stateKey<Map<string, boolean>>('GpuFit/modelMatches');

/**
 * Filter: the node has the GPU model the pod allows, enough memory per GPU,
 * and enough free GPUs (whole, or a device with a large enough free share).
 * Model and memory mismatches are unresolvable by preemption; a lack of free
 * GPUs is not. Pods that ask for no GPU pass untouched.
 */
export const gpuFit: Plugin = {
  name: 'GpuFit',

  preFilter(state: CycleState, pod: PodRequirements): void {
    if (pod.gpuModels !== undefined) state.write(MODEL_MATCHES, new Map());
  },

  filter(state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus {
    const { gpuCount, gpuMilli } = pod.demand;
    if (gpuCount <= 0) return PASS;

    if (pod.gpuModels !== undefined) {
      if (node.gpuModel === undefined) {
        return reject('GpuModelMismatch', `GPU model mismatch: pod wants ${pod.gpuModels.join('|')}, node has no ${NODE_LABEL.gpuModel} label`, true);
      }
      if (!modelAllowed(state, pod, node)) {
        return reject('GpuModelMismatch', `GPU model mismatch: pod wants ${pod.gpuModels.join('|')}, node has ${node.gpuModel}`, true);
      }
    }

    if (pod.gpuMemoryMiB !== undefined && pod.gpuMemoryMiB > 0) {
      if (node.gpuMemoryMiB === undefined) {
        return reject('InsufficientGpuMemory', `Not enough GPU memory: pod wants ${pod.gpuMemoryMiB} MiB per GPU, node has no ${NODE_LABEL.gpuMemory} label`, true);
      }
      if (node.gpuMemoryMiB < pod.gpuMemoryMiB) {
        return reject('InsufficientGpuMemory', `Not enough GPU memory: pod wants ${pod.gpuMemoryMiB} MiB per GPU, node has ${node.gpuMemoryMiB} MiB`, true);
      }
    }

    if (!node.fitsGpus(gpuCount, gpuMilli)) {
      if (gpuMilli >= GPU_MILLI) {
        return reject('InsufficientGpus', `Not enough GPUs: requested ${gpuCount}, free ${node.freeWholeGpus}`, gpuCount > node.gpuCount);
      }
      return reject(
        'InsufficientGpus',
        gpuCount === 1
          ? `Not enough GPU share: requested ${gpuMilli}/1000 of one GPU, largest free share ${node.maxDeviceFreeMilli}/1000`
          : `Not enough GPUs: requested ${gpuCount} with ${gpuMilli}/1000 free each, found ${node.devicesWithFree(gpuMilli)}`,
        gpuCount > node.gpuCount,
      );
    }
    return PASS;
  },
};

function modelAllowed(state: CycleState, pod: PodRequirements, node: NodeInfo): boolean {
  const cache = state.read(MODEL_MATCHES);
  const cached = cache?.get(node.gpuModelKey);
  if (cached !== undefined) return cached;
  const nodeTokens = node.gpuModelTokens;
  const allowed = pod.gpuModelTokens.some((wanted) => modelMatches(wanted, nodeTokens));
  cache?.set(node.gpuModelKey, allowed);
  return allowed;
}
