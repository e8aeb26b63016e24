import type { CycleState, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE } from '../framework';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const GPU_SHARE_PACKING_NAME = 'GpuSharePacking' as const;

const THIRD = Math.floor(MAX_NODE_SCORE / 3);
const HALF = Math.floor(MAX_NODE_SCORE / 2);

/**
 * GpuPacking as in the FGD paper's simulator: three tiers, best first —
 * (1) the pod fits on already-shared GPUs (50..100, tighter is better);
 * (2) it needs whole free GPUs of a node already in use (33..50, fewer is better);
 * (3) it opens an untouched node (0..33, smaller nodes first).
 * Pods without GPUs score 0 everywhere (no preference).
 */
export const gpuSharePacking: ScorePlugin = {
  name: GPU_SHARE_PACKING_NAME,
  score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
    const { gpuCount, gpuMilli } = pod.demand;
    if (gpuCount <= 0) return 0;
    const devices = node.devices;
    const wholeFree = node.freeWholeGpus;
    if (wholeFree === devices.length) return Math.max(THIRD - wholeFree, wholeFree);

    // Walk devices from the least free up (stable by index), as the paper's packing does.
    const need = Math.min(gpuMilli, GPU_MILLI);
    let remaining = gpuCount;
    let wholeUsed = 0;
    let freePercentOnUsed = 0;
    for (const index of ascendingByFree(devices)) {
      if (remaining === 0) break;
      const free = devices[index] ?? 0;
      if (free < need) continue;
      remaining--;
      if (free === GPU_MILLI) wholeUsed++;
      freePercentOnUsed += Math.trunc((free * 100) / GPU_MILLI);
    }
    if (remaining > 0) return 0;
    if (wholeUsed > 0) return Math.max(HALF - wholeUsed, THIRD);
    return Math.max(MAX_NODE_SCORE - Math.trunc(freePercentOnUsed / 10), HALF);
  },
};

const scratch: number[] = [];

/** Device indexes ordered by free share, ties by index; reuses one array (scoring is synchronous). */
function ascendingByFree(devices: Int32Array): readonly number[] {
  scratch.length = 0;
  for (let i = 0; i < devices.length; i++) {
    const free = devices[i] ?? 0;
    let j = scratch.length;
    while (j > 0 && (devices[scratch[j - 1] ?? 0] ?? 0) > free) j--;
    scratch.splice(j, 0, i);
  }
  return scratch;
}
