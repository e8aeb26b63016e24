import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { GpuOutcome } from '../scheduling/cluster-outcome';
import { clusterOutcome } from '../scheduling/cluster-outcome';
import type { PendingGpuPods } from '../scheduling/pending-gpu-pods';
import { pendingGpuPods } from '../scheduling/pending-gpu-pods';
import { snapshotFromKubernetes } from '../scheduling/snapshot';

/** Distinct reasons reported per run; the rest are summed into `Other` (metric cardinality). */
export const PENDING_REASON_LIMIT = 5;

/** What the cluster's GPUs and GPU pods look like this run. */
export interface ReconcileOutcome {
  readonly gpus: GpuOutcome;
  /** Per canonical GPU model; `unknown` where no labeller named one. */
  readonly byModel: Readonly<Record<string, GpuOutcome>>;
  readonly pending: PendingGpuPods;
}

/**
 * The outcome numbers from the run's own listings (the nodes of
 * NODE_SELECTOR, the unfinished pods of POD_NAMESPACES): the same library
 * measure `npm start` prints and the trace benchmark optimises.
 */
export function reconcileOutcome(nodes: readonly V1Node[], pods: readonly V1Pod[], schedulerName: string, now: Date): ReconcileOutcome {
  const o = clusterOutcome(snapshotFromKubernetes(nodes, pods));
  const gpus = { nodes: o.nodes, allocatable: o.allocatable, allocated: o.allocated, idle: o.idle, stranded: o.stranded };
  return { gpus, byModel: o.byModel, pending: pendingGpuPods(pods, schedulerName, now.getTime(), PENDING_REASON_LIMIT) };
}
