import type { CycleState } from '../framework';
import type { DeviceChoice } from '../device-choice';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

/**
 * The FGD paper's "Random" baseline: no node preference (every feasible node
 * scores the same, so the scheduler's random tie-break picks one uniformly)
 * and a fractional share lands on a uniformly random device that fits.
 * `random` returns floats in [0, 1); pass a seeded generator for repeatable runs.
 */
export function createRandomPlacement(random: () => number): DeviceChoice {
  return {
    name: 'RandomPlacement',
    score(): number {
      return 0;
    },
    chooseDevices(_state: CycleState, pod: PodRequirements, node: NodeInfo): readonly number[] | undefined {
      const { gpuCount, gpuMilli } = pod.demand;
      if (gpuCount !== 1 || gpuMilli >= GPU_MILLI) return undefined;
      let chosen = -1;
      let seen = 0;
      node.devices.forEach((free, index) => {
        if (free >= gpuMilli && Math.floor(random() * ++seen) === 0) chosen = index;
      });
      return chosen < 0 ? undefined : [chosen];
    },
  };
}
