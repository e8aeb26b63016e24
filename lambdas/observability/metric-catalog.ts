/**
 * The one list of CloudWatch metrics the Lambdas emit (EMF, through
 * Powertools Metrics: telemetry.ts) and the
 * dashboard and alarms read. Both sides import it, and a test
 * checks that every metric the CDK references is one a Lambda emits, so a
 * renamed metric cannot silently leave a dashboard widget empty.
 *
 * Every metric carries the `service` dimension, as Powertools adds it; `dimensions` lists
 * the extra ones, in the order they are added.
 */
import { COST_RANGES } from './cost-ranges';
import { SCHEDULING_REASON_CODES } from '../scheduling/scheduling-reason-codes';
import { REJECTION_REASONS } from '../scheduling/reasons';
import { GPU_HEALTH_CLASSES } from '../scheduling/gpu-health-reasons';

export const METRICS_NAMESPACE = 'GpuScheduling';

export const SERVICE = {
  extender: 'gpu-extender',
  labeler: 'gpu-node-labeler',
  reconciler: 'gpu-metrics-reconciler',
} as const;
export type ServiceName = (typeof SERVICE)[keyof typeof SERVICE];

export type MetricUnit = 'Count' | 'Milliseconds' | 'Seconds' | 'None';

/**
 * A dimension whose values are not listed here because the emitter bounds
 * them itself, such as the top namespaces by GPUs and `(other)`: any value
 * matching `pattern`. Dashboards read such a metric with a SEARCH.
 */
export interface OpenDimension {
  readonly open: true;
  readonly pattern: RegExp;
  /** What bounds the values, for the reader. */
  readonly bound: string;
}

export type DimensionValues = readonly string[] | OpenDimension;

export function isOpenDimension(values: DimensionValues | undefined): values is OpenDimension {
  return values !== undefined && !Array.isArray(values) && (values as OpenDimension).open === true;
}

/** Whether a metric emits `value` for dimension `name`. */
export function emitsDimensionValue(metric: MetricDefinition, name: string, value: string): boolean {
  const values = metric.dimensions[name];
  if (values === undefined) return false;
  return isOpenDimension(values) ? values.pattern.test(value) : values.includes(value);
}

export interface MetricDefinition {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly service: ServiceName;
  /** Extra dimensions beyond `service`, and the values they take. */
  readonly dimensions: Readonly<Record<string, DimensionValues>>;
}

export const EXTENDER_VERBS = ['filter', 'prioritize', 'preempt'] as const;
/** The collections the extender's cluster cache mirrors (lambdas/cluster-state/kubernetes-cluster-source.ts). */
export const CLUSTER_CACHE_COLLECTIONS = ['nodes', 'pods', 'resourceslices', 'resourceclaims'] as const;
export type ExtenderVerb = (typeof EXTENDER_VERBS)[number];

/**
 * Low-cardinality codes for why a node was rejected; the human message stays in logs.
 * Defined by the scheduling library (which must not import this file) and re-exported here.
 */
export { REJECTION_REASONS };
export type { RejectionReason } from '../scheduling/reasons';

export const LABELER_ERROR_KINDS = ['Ec2', 'Kubernetes', 'InvalidEvent', 'Unknown'] as const;
/** SchedulerMetrics: reading the second scheduler's /metrics failed (the run goes on; lambdas/reconciler/scheduler-metrics.ts). */
export const RECONCILER_ERROR_KINDS = ['CloudWatch', 'Kubernetes', 'SchedulerMetrics', 'Unknown'] as const;
export const WRITE_SKIP_REASONS = ['Unchanged', 'Budget', 'Terminating'] as const;
/** Owner kinds of opted-in pods no controller reads a deletion cost of (lambdas/reconciler/deletion-cost-policy.ts). */
/** `result` of kube-scheduler's scheduler_schedule_attempts_total (pkg/scheduler/metrics, v1.35 and v1.36; 1.36's waiting_on_preemption counts pod groups only). */
export const SCHEDULE_ATTEMPT_RESULTS = ['scheduled', 'unschedulable', 'error'] as const;
/** `queue` of kube-scheduler's scheduler_pending_pods. */
export const SCHEDULER_QUEUES = ['active', 'backoff', 'unschedulable', 'gated'] as const;
export const UNCOVERED_OWNER_KINDS = ['StatefulSet', 'Job', 'DaemonSet', 'Other', 'None'] as const;
/**
 * GpuModel values: the canonical names (lambdas/scheduling/gpu-model.ts) of
 * the NVIDIA GPUs EC2 offers, `Unknown` for nodes no labeller named a model
 * of, and `Other` for the rest (summed), so the dimension stays bounded.
 */
export const GPU_MODELS = ['A10G', 'A100', 'B200', 'GB200', 'H100', 'H200', 'K80', 'L4', 'L40S', 'M60', 'T4', 'T4G', 'V100', 'Unknown', 'Other'] as const;
export const GPU_STATES = ['Allocatable', 'Allocated', 'Idle', 'Stranded'] as const;
/** States of reserved GPUs (ReservedGpus). */
export const RESERVED_GPU_STATES = ['Allocatable', 'Idle'] as const;
/**
 * The `Namespace` of the per-namespace cost metrics: the top namespaces by
 * allocated GPUs (COST_TOP_NAMESPACES) and OTHER_NAMESPACES for the rest, so
 * at most N + 1 series whatever the number of namespaces
 * (lambdas/reconciler/namespace-cost.ts).
 */
export const OTHER_NAMESPACES = '(other)';
export const COST_NAMESPACE: OpenDimension = {
  open: true,
  // A Kubernetes namespace name (DNS label), or OTHER_NAMESPACES, which no namespace can be named.
  pattern: /^(?:[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?|\(other\))$/,
  bound: 'the top COST_TOP_NAMESPACES namespaces by allocated GPUs, and (other)',
};
/** Unhealthy (take no pod) and degraded (avoided) GPUs, by GpuModel and by Class (lambdas/scheduling/gpu-health-outcome.ts). */
export const GPU_HEALTH_STATES = ['Unhealthy', 'Degraded'] as const;
/** Why GPUs are unhealthy or degraded: the library's bounded classes (lambdas/scheduling/gpu-health-reasons.ts). */
export { GPU_HEALTH_CLASSES };
/** Why GPU pods are pending: the codes of lambdas/scheduling/failed-scheduling.ts (at most 5 and `Other` per run). */
export { SCHEDULING_REASON_CODES, COST_RANGES };

export const METRIC = {
  extenderRequests: {
    name: 'ExtenderRequests',
    unit: 'Count',
    service: SERVICE.extender,
    dimensions: { Verb: EXTENDER_VERBS },
  },
  extenderLatency: {
    name: 'ExtenderLatency',
    unit: 'Milliseconds',
    service: SERVICE.extender,
    dimensions: { Verb: EXTENDER_VERBS },
  },
  extenderErrors: {
    name: 'ExtenderErrors',
    unit: 'Count',
    service: SERVICE.extender,
    dimensions: { Verb: EXTENDER_VERBS },
  },
  /**
   * A watch of the extender's cluster cache that could not resume (410 Gone
   * after a compaction or an API server restart, an ERROR event), so the
   * collection was listed again: at 50,000 pods a cost worth seeing.
   */
  clusterCacheRelists: {
    name: 'ClusterCacheRelists',
    unit: 'Count',
    service: SERVICE.extender,
    dimensions: { Collection: CLUSTER_CACHE_COLLECTIONS },
  },
  nodesRejected: {
    name: 'NodesRejected',
    unit: 'Count',
    service: SERVICE.extender,
    dimensions: { Reason: REJECTION_REASONS },
  },
  nodesLabeled: { name: 'NodesLabeled', unit: 'Count', service: SERVICE.labeler, dimensions: {} },
  labelsAlreadyCorrect: { name: 'LabelsAlreadyCorrect', unit: 'Count', service: SERVICE.labeler, dimensions: {} },
  labelerErrors: {
    name: 'LabelerErrors',
    unit: 'Count',
    service: SERVICE.labeler,
    dimensions: { Kind: LABELER_ERROR_KINDS },
  },
  timeToLabel: { name: 'TimeToLabel', unit: 'Milliseconds', service: SERVICE.labeler, dimensions: {} },
  /** A running instance of the cluster whose node did not register within the labeler's wait: an outcome, not an error. */
  nodesNotRegistered: { name: 'NodesNotRegistered', unit: 'Count', service: SERVICE.labeler, dimensions: {} },
  startupTaintsRemoved: { name: 'StartupTaintsRemoved', unit: 'Count', service: SERVICE.labeler, dimensions: {} },
  podsEvaluated: { name: 'PodsEvaluated', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  deletionCostsWritten: { name: 'DeletionCostsWritten', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  writesSkipped: {
    name: 'WritesSkipped',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Reason: WRITE_SKIP_REASONS },
  },
  podsWithoutMetrics: { name: 'PodsWithoutMetrics', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** Opted-in pods left without a deletion cost because no controller of theirs reads it (docs/reconciler.md). */
  podsNotCovered: {
    name: 'PodsNotCovered',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { OwnerKind: UNCOVERED_OWNER_KINDS },
  },
  nodeUtilizationWritten: { name: 'NodeUtilizationWritten', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /**
   * The second scheduler's own metrics, read by the reconciler from each ready
   * gpu-scheduler pod's /metrics (docs/reconciler.md, "The second scheduler's
   * metrics"). Attempts and latency are per-run deltas of kube-scheduler's
   * counters summed over the replicas; nothing is emitted for them on a warm
   * container's first run or a replica's first sight.
   */
  gpuSchedulerAttempts: {
    name: 'GpuSchedulerAttempts',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Result: SCHEDULE_ATTEMPT_RESULTS },
  },
  /**
   * scheduler_pending_pods of the leader (leader_election_master_status 1), by
   * queue: a follower's informers fill its queue too, but it never pops it.
   */
  gpuSchedulerPendingPods: {
    name: 'GpuSchedulerPendingPods',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Queue: SCHEDULER_QUEUES },
  },
  /** Mean scheduling attempt duration (algorithm + binding) over the run's interval, from the histogram's _sum/_count deltas. */
  gpuSchedulerAttemptLatency: { name: 'GpuSchedulerAttemptLatency', unit: 'Milliseconds', service: SERVICE.reconciler, dimensions: {} },
  /** gpu-scheduler pods whose Ready condition is True. */
  gpuSchedulerReadyReplicas: { name: 'GpuSchedulerReadyReplicas', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /**
   * Cluster outcome, every run, from the reconciler's one node and pod listing
   * (lambdas/reconciler/outcome.ts): GPUs of the listed nodes, in GPUs (a
   * quarter share is 0.25). Stranded: idle GPUs the workload's typical shapes
   * cannot use (the FGD fragment).
   */
  gpusAllocatable: { name: 'GpusAllocatable', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpusAllocated: { name: 'GpusAllocated', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpusIdle: { name: 'GpusIdle', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpusStranded: { name: 'GpusStranded', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** The same four numbers per GPU model (only models present are emitted). */
  gpusByModel: {
    name: 'GpusByModel',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { GpuModel: GPU_MODELS, State: GPU_STATES },
  },
  /** GPU pods waiting for the GPU scheduler (GPU_SCHEDULER_NAME) to find a node, 0 when none; pods held by scheduling gates are not among them. */
  gpuPodsPending: { name: 'GpuPodsPending', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** GPU pods of the GPU scheduler held by scheduling gates (waiting for admission, e.g. Kueue's), 0 when none. */
  gpuPodsAwaitingAdmission: { name: 'GpuPodsAwaitingAdmission', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** Age of the oldest of them since creation, 0 when none. */
  oldestPendingGpuPodAge: { name: 'OldestPendingGpuPodAge', unit: 'Seconds', service: SERVICE.reconciler, dimensions: {} },
  /**
   * Capacity, every run (lambdas/reconciler/capacity.ts): the GPU nodes
   * counted above, those created since the previous run (launched) and those
   * being deleted; the dashboard takes terminated nodes as launched minus the
   * change in GpuNodes.
   */
  gpuNodes: { name: 'GpuNodes', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpuNodesLaunched: { name: 'GpuNodesLaunched', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpuNodesTerminating: { name: 'GpuNodesTerminating', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** Sum of the GPU nodes' on-demand prices, USD per hour (unit None: CloudWatch has no currency). */
  gpuNodesHourlyCost: { name: 'GpuNodesHourlyCostUsd', unit: 'None', service: SERVICE.reconciler, dimensions: {} },
  /** GPU nodes whose instance type has no price (GPU_PRICES_USD): left out of the cost. */
  gpuNodesUnpriced: { name: 'GpuNodesUnpriced', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /**
   * Reserved capacity, every run (lambdas/reconciler/reserved-capacity.ts):
   * the GPUs of reserved nodes (Karpenter's `reserved`, EKS's
   * `CAPACITY_BLOCK`, our labeler's `reserved`) and those idle, by model.
   */
  reservedGpus: {
    name: 'ReservedGpus',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { GpuModel: GPU_MODELS, State: RESERVED_GPU_STATES },
  },
  /** What the idle reserved GPUs cost, USD per hour, by model: paid for and unused (reservation prices, gpu-prices.ts). */
  reservedGpusIdleHourlyCost: {
    name: 'ReservedGpusIdleHourlyCostUsd',
    unit: 'None',
    service: SERVICE.reconciler,
    dimensions: { GpuModel: GPU_MODELS },
  },
  /** Idle reserved GPUs while GPU pods wait for new capacity (Karpenter launching for them); 0 otherwise. The alarm reads it. */
  reservedGpusIdleWhileWaiting: { name: 'ReservedGpusIdleWhilePodsWaitForCapacity', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /**
   * Cost per team, every run (lambdas/reconciler/namespace-cost.ts): GPUs
   * the namespace's bound pods hold, and their share of their nodes' hourly
   * prices, for the top namespaces by GPUs and `(other)`. Idle GPUs are
   * nobody's: GpusIdleHourlyCostUsd.
   */
  namespaceGpusAllocated: {
    name: 'NamespaceGpusAllocated',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Namespace: COST_NAMESPACE },
  },
  namespaceGpuHourlyCost: {
    name: 'NamespaceGpuHourlyCostUsd',
    unit: 'None',
    service: SERVICE.reconciler,
    dimensions: { Namespace: COST_NAMESPACE },
  },
  /** The idle GPUs' share of the priced GPU nodes' hourly prices, USD: attributed to no namespace. */
  gpusIdleHourlyCost: { name: 'GpusIdleHourlyCostUsd', unit: 'None', service: SERVICE.reconciler, dimensions: {} },
  /** Pending GPU pods Karpenter is bringing a node up for (a fresh Nominated event), and the rest: waiting for room on existing nodes. */
  gpuPodsWaitingForCapacity: { name: 'GpuPodsWaitingForCapacity', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpuPodsWaitingForFit: { name: 'GpuPodsWaitingForFit', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** Pending GPU pods per reason of their PodScheduled=False message: each pod once per reason. */
  gpuPodsPendingByReason: {
    name: 'GpuPodsPendingByReason',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Reason: SCHEDULING_REASON_CODES },
  },
  /**
   * GPU health, every run (docs/health.md): GPUs of failing nodes and those a
   * node withholds (unhealthy), GPUs of degraded nodes (degraded); written as
   * 0 when none, so an alarm sees a healthy value. By model and by class
   * only where there are some.
   */
  gpusUnhealthy: { name: 'GpusUnhealthy', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpusDegraded: { name: 'GpusDegraded', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  gpuHealthByModel: {
    name: 'GpuHealthByModel',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { GpuModel: GPU_MODELS, State: GPU_HEALTH_STATES },
  },
  gpuHealthByClass: {
    name: 'GpuHealthByClass',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Class: GPU_HEALTH_CLASSES, State: GPU_HEALTH_STATES },
  },
  /** Nodes whose AcceleratedHardwareReady is False, and how long the oldest has been (0 when none): repair should take minutes. */
  gpuNodesFailing: { name: 'GpuNodesFailing', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  oldestFailingGpuNodeAge: { name: 'OldestFailingGpuNodeAge', unit: 'Seconds', service: SERVICE.reconciler, dimensions: {} },
  /** GPU pods bound to degraded nodes (placed there because nothing healthy fitted, or before the node was degraded). */
  gpuPodsOnDegradedNodes: { name: 'GpuPodsOnDegradedNodes', unit: 'Count', service: SERVICE.reconciler, dimensions: {} },
  /** The deletion costs computed this run (covered pods), per range. */
  deletionCosts: {
    name: 'DeletionCosts',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Range: COST_RANGES },
  },
  reconcilerErrors: {
    name: 'ReconcilerErrors',
    unit: 'Count',
    service: SERVICE.reconciler,
    dimensions: { Kind: RECONCILER_ERROR_KINDS },
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricKey = keyof typeof METRIC;
