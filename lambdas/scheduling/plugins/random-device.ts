import type { CycleState } from '../framework';
import { MAX_NODE_SCORE, stateKey } from '../framework';
import type { DeviceChoice } from '../device-choice';
import { GPU_MILLI } from '../keys';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const RANDOM_PLACEMENT_NAME = 'RandomPlacement' as const;

const CHOSEN = stateKey<NodeInfo>(`${RANDOM_PLACEMENT_NAME}/chosen`);

/**
 * The FGD paper's "Random" baseline: PreScore draws one feasible node
 * uniformly and only it scores 100, whatever the tie-breaking rule; a
 * fractional share then lands on a uniformly random device that fits.
 * `random` returns floats in [0, 1); pass a seeded generator for repeatable runs.
 */
export function createRandomPlacement(random: () => number): DeviceChoice {
  return {
    name: RANDOM_PLACEMENT_NAME,
    preScore(state: CycleState, _pod: PodRequirements, nodes: readonly NodeInfo[]): void {
      const chosen = nodes[Math.floor(random() * nodes.length)];
      if (chosen !== undefined) state.write(CHOSEN, chosen);
    },
    score(state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
      return state.read(CHOSEN) === node ? MAX_NODE_SCORE : 0;
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
