import type { CoreV1Event, V1Node, V1Pod, ResourceV1ResourceClaim, V1ResourceSlice } from '@kubernetes/client-node';
import type { CapacityOutcome, CapacitySettings } from './capacity';
import { capacityOutcome } from './capacity';
import type { GpuOutcome } from '../scheduling/cluster-outcome';
import { clusterOutcome } from '../scheduling/cluster-outcome';
import type { GpuHealthOutcome } from '../scheduling/gpu-health-outcome';
import { gpuHealthOutcome } from '../scheduling/gpu-health-outcome';
import type { GpuHealthClass } from '../scheduling/gpu-health-reasons';
import type { PendingGpuPods } from '../scheduling/pending-gpu-pods';
import { isPendingGpuPod, pendingGpuPods } from '../scheduling/pending-gpu-pods';
import { snapshotFromKubernetes } from '../scheduling/snapshot';
import type { NamespaceCostOutcome } from './namespace-cost';
import { DEFAULT_COST_TOP_NAMESPACES, namespaceCostOutcome } from './namespace-cost';
import type { ReservedCapacityOutcome } from './reserved-capacity';
import { reservedCapacityOutcome } from './reserved-capacity';

/** Distinct reasons reported per run; the rest are summed into `Other` (metric cardinality). */
export const PENDING_REASON_LIMIT = 5;
/** Nodes named in the warning about invalid GPU data; the rest are only counted (log size). */
export const INVALID_NODE_EXAMPLES = 5;

/** Nodes whose GPU data (labels, ResourceSlices) cannot be trusted: their GPUs are left out of the counts. */
export interface InvalidGpuNodes {
  readonly count: number;
  /** The first few, with the reason, so the log names what to fix. */
  readonly examples: readonly { readonly node: string; readonly reason: string }[];
}

/** What the cluster's GPUs and GPU pods look like this run. */
export interface ReconcileOutcome {
  readonly gpus: GpuOutcome;
  /** Per canonical GPU model; `unknown` where no labeller named one. */
  readonly byModel: Readonly<Record<string, GpuOutcome>>;
  readonly pending: PendingGpuPods;
  readonly invalidNodes: InvalidGpuNodes;
  /** GPU nodes launched, terminating and their hourly cost; pending GPU pods waiting for capacity versus for a fit. */
  readonly capacity: CapacityOutcome;
  /** Reserved GPUs, idle ones and their cost. */
  readonly reserved: ReservedCapacityOutcome;
  /** GPUs and dollars per namespace (top N and `(other)`), and the idle GPUs' cost. */
  readonly namespaceCost: NamespaceCostOutcome;
  /** Unhealthy and degraded GPUs, failing nodes, GPU pods on degraded nodes (gpu-health-outcome.ts). */
  readonly health: GpuHealthOutcome;
}

/** What the capacity numbers need besides the listings the GPU outcome reads. */
export interface CapacityInputs {
  /** Karpenter's Nominated events (empty where Karpenter does not run: every pending pod then waits for a fit). */
  readonly nominations: readonly CoreV1Event[];
  readonly settings: CapacitySettings;
}

/**
 * The outcome numbers from the run's own listings (the nodes of
 * NODE_SELECTOR, the unfinished pods of POD_NAMESPACES, NVIDIA's
 * ResourceSlices): the same library measure `npm start` prints and the trace
 * benchmark optimises. A node served by NVIDIA's DRA driver has no
 * nvidia.com/gpu in allocatable: its GPUs come from its slices, read by the
 * same function as the extender's, and its bound pods' nvidia.com/gpu
 * requests (KEP-5004) count against them as on a device-plugin node, and
 * so do the GPUs ResourceClaims hold there (pods that claim GPUs directly).
 */
export function reconcileOutcome(
  nodes: readonly V1Node[],
  pods: readonly V1Pod[],
  dra: { readonly resourceSlices: readonly V1ResourceSlice[]; readonly resourceClaims: readonly ResourceV1ResourceClaim[] },
  schedulerName: string,
  now: Date,
  capacity: CapacityInputs = { nominations: [], settings: { runIntervalSeconds: 60, pricesUsd: {} } },
  /** For a node the reconciler labels degraded, the classes of what made it so (gpu-health-labels.ts). */
  degradedClasses: (node: string) => readonly GpuHealthClass[] | undefined = () => undefined,
): ReconcileOutcome {
  const snapshot = snapshotFromKubernetes(nodes, pods, dra.resourceSlices, dra.resourceClaims);
  const o = clusterOutcome(snapshot);
  const gpus = { nodes: o.nodes, allocatable: o.allocatable, allocated: o.allocated, idle: o.idle, stranded: o.stranded };
  const invalid = snapshot.nodes.filter((node) => node.invalid !== undefined);
  const invalidNodes = {
    count: invalid.length,
    examples: invalid.slice(0, INVALID_NODE_EXAMPLES).map((node) => ({ node: node.name, reason: node.invalid ?? '' })),
  };
  // The nodes the GPU counts include, so that launched, cost and GPUs agree.
  const counted = new Set(snapshot.nodes.filter((node) => node.gpuCount > 0 && node.invalid === undefined).map((node) => node.name));
  const gpuNodes = nodes.filter((node) => counted.has(node.metadata?.name ?? ''));
  const pendingPods = pods.filter((pod) => isPendingGpuPod(pod, schedulerName, snapshot.gpuClaim));
  const capacityNow = capacityOutcome(gpuNodes, pendingPods, capacity.nominations, capacity.settings, now, nodes);
  return {
    gpus,
    byModel: o.byModel,
    pending: pendingGpuPods(pods, schedulerName, now.getTime(), PENDING_REASON_LIMIT, snapshot.gpuClaim),
    invalidNodes,
    capacity: capacityNow,
    reserved: reservedCapacityOutcome(snapshot, capacity.settings, capacityNow.waitingForCapacity),
    namespaceCost: namespaceCostOutcome(snapshot, capacity.settings, capacity.settings.costTopNamespaces ?? DEFAULT_COST_TOP_NAMESPACES),
    health: gpuHealthOutcome(snapshot, now.getTime(), degradedClasses),
  };
}
