import type { CycleState, FilterPlugin, FilterRejection, FilterStatus, PreScoreResult, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE, PASS, reject, SKIP, stateKey } from '../framework';
import type { NodeInfo } from '../node-info';
import { nodeCapacity, reclaimedAtMs } from '../node-capacity';
import type { PodRequirements } from '../pod-requirements';

export const CAPACITY_BLOCK_END_NAME = 'CapacityBlockEnd' as const;
export const RESERVED_CAPACITY_NAME = 'ReservedCapacity' as const;

/**
 * EC2 starts terminating a Capacity Block's instances 30 minutes before the
 * block ends, and Karpenter deletes their nodes 10 minutes before that
 * (karpenter-provider-aws, capacityreservation/expiration): a pod must be
 * done 40 minutes before the end.
 */
export const DEFAULT_DRAIN_MARGIN_MS = 40 * 60_000;

export interface CapacityBlockEndOptions {
  /** What must be left of a block after the pod's expected runtime (default 40 minutes). */
  readonly drainMarginMs?: number;
  /** The clock the end is compared with, ms since the epoch (default Date.now). */
  readonly now?: () => number;
}

/** Per cycle: the latest end a node's block may have and still be refused, and the rejections built for it. */
interface EndCycle {
  /** A block ending before this is refused. */
  readonly deadlineMs: number;
  readonly nowMs: number;
  /** By end time: one rejection per distinct end, as nodes of one block share it. */
  readonly byEnd: Map<number, FilterRejection>;
}

/** `2h10m`, `40m`, `3d4h`: whole minutes, largest units first. */
export function formatMinutes(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [days > 0 ? `${days}d` : '', hours > 0 ? `${hours}h` : '', rest > 0 || minutes === 0 ? `${rest}m` : ''];
  return parts.join('');
}

/** The end as an RFC 3339 UTC time to the second. */
function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Filter: keeps a pod off a Capacity Block that ends before the pod would
 * be done. With `gpu.nvidia.com/expected-runtime` the block must outlast now
 * + the runtime + the drain margin; without it (or with a malformed one),
 * only the margin: no new pod starts on a block in its last 40 minutes,
 * which Karpenter is about to drain. Nodes of an On-Demand Capacity
 * Reservation, or of a block whose end is not labelled yet, pass: EC2 takes
 * nothing back at an ODCR's end. Unresolvable: no eviction makes a block last longer.
 */
export function createCapacityBlockEnd(options: CapacityBlockEndOptions = {}): FilterPlugin {
  const marginMs = options.drainMarginMs ?? DEFAULT_DRAIN_MARGIN_MS;
  if (!(Number.isFinite(marginMs) && marginMs >= 0)) throw new RangeError(`${CAPACITY_BLOCK_END_NAME} drain margin must be >= 0 ms, got ${marginMs}`);
  const now = options.now ?? Date.now;
  const CYCLE = stateKey<EndCycle>(`${CAPACITY_BLOCK_END_NAME}/cycle`);

  const rejection = (cycle: EndCycle, pod: PodRequirements, endMs: number): FilterRejection => {
    let status = cycle.byEnd.get(endMs);
    if (status === undefined) {
      const left = endMs - cycle.nowMs;
      const ends = left > 0 ? `the node's Capacity Block ends ${formatInstant(endMs)} (in ${formatMinutes(left)})` : `the node's Capacity Block ended ${formatInstant(endMs)}`;
      const why =
        pod.expectedRuntimeMs === undefined
          ? `within the ${formatMinutes(marginMs)} drain margin, in which no new pod starts there`
          : `before the pod's expected runtime of ${formatMinutes(pod.expectedRuntimeMs)} and the ${formatMinutes(marginMs)} drain margin have passed`;
      status = reject('CapacityBlockEnding', `${ends}, ${why}`, true);
      cycle.byEnd.set(endMs, status);
    }
    return status;
  };

  return {
    name: CAPACITY_BLOCK_END_NAME,
    preFilter(state: CycleState, pod: PodRequirements): void {
      const nowMs = now();
      state.write(CYCLE, { nowMs, deadlineMs: nowMs + (pod.expectedRuntimeMs ?? 0) + marginMs, byEnd: new Map() });
    },
    filter(state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus {
      const endMs = reclaimedAtMs(nodeCapacity(node.labels));
      if (endMs === undefined) return PASS;
      let cycle = state.read(CYCLE);
      if (cycle === undefined) {
        const nowMs = now();
        cycle = { nowMs, deadlineMs: nowMs + (pod.expectedRuntimeMs ?? 0) + marginMs, byEnd: new Map() };
        state.write(CYCLE, cycle);
      }
      return endMs < cycle.deadlineMs ? rejection(cycle, pod, endMs) : PASS;
    },
  };
}

export const capacityBlockEnd: FilterPlugin = createCapacityBlockEnd();

function isReserved(node: NodeInfo): boolean {
  return nodeCapacity(node.labels).type === 'reserved';
}

/**
 * Score: reserved capacity (Karpenter's `reserved`, an EKS node group's
 * `CAPACITY_BLOCK`, our labeler's `reserved`) 100, anything else 0: a reserved
 * GPU is paid for whether used or not, so it fills first. On-demand and spot
 * score alike: between them the pod's own affinity on
 * `karpenter.sh/capacity-type` decides. Skips (no preference, no weight in
 * the mean) when the feasible nodes are all reserved or none is, so a
 * cluster without reservations scores exactly as without this plugin. How
 * much it counts against packing: DEFAULT_WEIGHTS in profiles.ts.
 */
export const reservedCapacity: ScorePlugin = {
  name: RESERVED_CAPACITY_NAME,
  preScore(_state: CycleState, _pod: PodRequirements, nodes: readonly NodeInfo[]): PreScoreResult {
    let reserved = 0;
    for (const node of nodes) if (isReserved(node)) reserved++;
    return reserved === 0 || reserved === nodes.length ? SKIP : undefined;
  },
  score(_state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
    return isReserved(node) ? MAX_NODE_SCORE : 0;
  },
};
