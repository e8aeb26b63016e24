// A node's GPUs as slots, each in one state: taken by pods bound before,
// taken by pods placed now, free, or stranded. Stranded is the library's
// measure (lambdas/scheduling/cluster-outcome.ts): the node's expected
// stranded GPU against the workload's typical shapes, rounded to whole
// slots and shown on its free ones, so the slots add up to the outcome.
import { GPU_MILLI } from '../../lambdas/scheduling/keys';
import type { NodeInfo } from '../../lambdas/scheduling/node-info';

export type SlotState = 'bound' | 'placed' | 'free' | 'stranded';

export const SLOT_STATES: readonly SlotState[] = ['bound', 'placed', 'free', 'stranded'];

export interface GpuSlot {
  readonly state: SlotState;
  /** Free share of the device, 0..1000 milli. */
  readonly freeMilli: number;
  /** The pods holding it (namespace/name). */
  readonly pods: readonly string[];
}

export interface NodeSlots {
  readonly slots: readonly GpuSlot[];
  /** The node's stranded GPU as the outcome counts it (two decimals). */
  readonly stranded: number;
}

/**
 * The slots of one node. `placedNow` names the pods placed by this run (by
 * uid); every other pod on the node was bound before. `strandedMilli` is the
 * library's stranded measure of the node.
 */
export function nodeSlots(node: NodeInfo, placedNow: ReadonlySet<string>, strandedMilli: number): NodeSlots {
  const holders: { pods: string[]; placed: boolean }[] = Array.from({ length: node.gpuCount }, () => ({ pods: [], placed: false }));
  for (const pod of node.pods) {
    for (const device of node.devicesOf(pod.uid) ?? []) {
      const holder = holders[device];
      if (holder === undefined) continue;
      holder.pods.push(`${pod.namespace}/${pod.name}`);
      if (placedNow.has(pod.uid)) holder.placed = true;
    }
  }
  const states: SlotState[] = holders.map((holder, i) => {
    if (holder.placed) return 'placed';
    // Held by a bound pod, or by a ResourceClaim no pod of the dump accounts for.
    return (node.devices[i] ?? 0) < GPU_MILLI ? 'bound' : 'free';
  });
  // The stranded ones are the last free slots: which free GPU is stranded is not a fact, how many is.
  let toStrand = Math.min(Math.round(strandedMilli / GPU_MILLI), states.filter((s) => s === 'free').length);
  for (let i = states.length - 1; i >= 0 && toStrand > 0; i--) {
    if (states[i] !== 'free') continue;
    states[i] = 'stranded';
    toStrand--;
  }
  return {
    slots: states.map((state, i) => ({ state, freeMilli: node.devices[i] ?? 0, pods: holders[i]?.pods ?? [] })),
    stranded: Math.round(strandedMilli / 10) / 100,
  };
}

/** How many slots are in each state. */
export function countSlots(slots: readonly GpuSlot[]): Record<SlotState, number> {
  const counts: Record<SlotState, number> = { bound: 0, placed: 0, free: 0, stranded: 0 };
  for (const slot of slots) counts[slot.state]++;
  return counts;
}
