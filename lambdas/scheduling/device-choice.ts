import type { CycleState, ScorePlugin } from './framework';
import type { NodeInfo } from './node-info';
import type { PodRequirements } from './pod-requirements';
import type { Profile } from './profile';

/**
 * Optional Reserve-time hook: which GPU devices of the chosen node a pod gets.
 * Whole GPUs are interchangeable, but for a fractional share the device
 * decides how fragmented the node becomes, so a fragmentation-aware scorer
 * also wants to pick the device it scored. Returning undefined leaves the
 * choice to NodeInfo's default (first free whole GPUs, tightest-fitting
 * device for a share).
 *
 * Only simulators can act on this: on a real cluster the NVIDIA device plugin
 * assigns devices. It is kept out of the ScorePlugin interface for that reason.
 */
export interface DeviceChoice extends ScorePlugin {
  chooseDevices(state: CycleState, pod: PodRequirements, node: NodeInfo): readonly number[] | undefined;
}

export function hasDeviceChoice(plugin: ScorePlugin): plugin is DeviceChoice {
  return typeof (plugin as Partial<DeviceChoice>).chooseDevices === 'function';
}

/**
 * Devices for `pod` on `node`, asked of the highest-weight scorer that has a
 * device choice (the same rule as the FGD paper's simulator: the dominant
 * score plugin picks the GPU); undefined when none has one.
 */
export function chooseDevices(profile: Profile, state: CycleState, node: NodeInfo): readonly number[] | undefined {
  let chooser: DeviceChoice | undefined;
  let weight = -1;
  for (const scorer of profile.scorers) {
    if (scorer.weight > weight && hasDeviceChoice(scorer.plugin)) {
      chooser = scorer.plugin;
      weight = scorer.weight;
    }
  }
  return chooser?.chooseDevices(state, state.pod, node);
}
