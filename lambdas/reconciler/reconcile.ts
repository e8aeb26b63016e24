import type { V1Node, V1Pod, V1ResourceSlice } from '@kubernetes/client-node';
import type { DeletionCostPolicy, PodSignals, UncoveredOwnerKind } from './deletion-cost-policy';
import { deletionCostCoverage, isWarmingUp, podDeletionCost, UNCOVERED_OWNER_KINDS } from './deletion-cost-policy';
import type { AnnotationWriter, ClusterReader } from './kube-objects';
import type { MetricReader } from './cloudwatch-metric-reader';
import type { CostRange } from '../observability/cost-ranges';
import { costRange, emptyCostRanges } from '../observability/cost-ranges';
import type { NodeMetricSettings, PodMetricSettings } from './metric-queries';
import { nodeMetricPlan, podMetricPlan } from './metric-queries';
import type { ReconcileOutcome } from './outcome';
import { reconcileOutcome } from './outcome';
import { KARPENTER_DISRUPTION_COST_ANNOTATION, karpenterDisruptionCost } from './karpenter-disruption-cost';
import type { NodeView, PodView } from './pod-view';
import { nodeView, POD_DELETION_COST_ANNOTATION, podView, secondsSince } from './pod-view';
import { sanitisePercent } from './sanitise';
import type { WriteCandidate, WriteDiscipline } from './write-discipline';
import { decideWrite, planWrites } from './write-discipline';
import { errorMessage } from '../common/error-message';
import { doNotDisruptChanges } from './do-not-disrupt';
import type { CapacitySettings } from './capacity';
import type { GpuHealthLabelPlan, GpuHealthSettings } from './gpu-health-labels';
import { planGpuHealthLabels } from './gpu-health-labels';
import { draInventoryFromKubernetes } from '../scheduling/snapshot';

export interface NodeUtilizationSettings {
  readonly enabled: boolean;
  /** Node annotation the extender's GPU score reads (integer percent 0..100). */
  readonly annotation: string;
  readonly discipline: WriteDiscipline;
  readonly maxWritesPerRun: number;
  readonly metrics: NodeMetricSettings;
}

export interface ReconcilerSettings {
  readonly policy: DeletionCostPolicy;
  readonly podDiscipline: WriteDiscipline;
  readonly maxPodWritesPerRun: number;
  readonly podMetrics: PodMetricSettings;
  readonly nodes: NodeUtilizationSettings;
  /** The second scheduler's name: its GPU pods are the pending ones counted. */
  readonly schedulerName: string;
  /**
   * Also write each cost, scaled to Karpenter's band, as
   * karpenter.sh/disruption-cost, so Karpenter's consolidation picks the
   * nodes of idle pods first (see karpenter-disruption-cost.ts).
   */
  readonly karpenterDisruptionCost: boolean;
  /**
   * Give pods opted in with gpu.nvidia.com/do-not-disrupt Karpenter's
   * karpenter.sh/do-not-disrupt while they run (do-not-disrupt.ts).
   */
  readonly karpenterDoNotDisrupt: boolean;
  /** The run interval and instance prices behind the capacity numbers. */
  readonly capacity: CapacitySettings;
  /** The degraded label from GPU warnings and DRA taints (gpu-health-labels.ts). */
  readonly health: GpuHealthSettings;
}

export interface ReconcileDeps {
  readonly cluster: ClusterReader;
  readonly writer: AnnotationWriter;
  readonly metrics: MetricReader;
  readonly now: () => Date;
}

export type ReconcileErrorKind = 'CloudWatch' | 'Kubernetes' | 'Unknown';

/** Where a failure happened; a failed pod or node list or metric read means the run did nothing useful. */
export type ReconcileStep =
  | 'listPods'
  | 'listNodes'
  | 'listResourceSlices'
  | 'listResourceClaims'
  | 'listFinishedPods'
  | 'listEvents'
  | 'listNodeEvents'
  | 'readMetrics'
  | 'patchPod'
  | 'patchNode';

export interface ReconcileError {
  readonly kind: ReconcileErrorKind;
  readonly step: ReconcileStep;
  readonly message: string;
}

export interface ReconcileSummary {
  podsEvaluated: number;
  podsWarmingUp: number;
  podsWithoutMetrics: number;
  deletionCostsWritten: number;
  skippedUnchanged: number;
  skippedBudget: number;
  skippedTerminating: number;
  /** Opted-in pods whose owner does not honour a deletion cost, by owner kind: left unwritten (and unqueried). */
  podsNotCovered: Record<UncoveredOwnerKind, number>;
  /** A few of them, `namespace/name (apiVersion kind)`, so the log names what to fix. */
  podsNotCoveredExamples: string[];
  podsGone: number;
  writeConflicts: number;
  /** karpenter.sh/do-not-disrupt written on opted-in pods now bound. */
  doNotDisruptSet: number;
  /** Ours taken off pods that finished or left the opt-in. */
  doNotDisruptCleared: number;
  /** Opted-in pods given the lowest cost because their node is failing or degraded. */
  podsOnUnhealthyNodes: number;
  /** gpu.nvidia.com/health=degraded written on nodes, and taken off quiet ones. */
  healthLabelsSet: number;
  healthLabelsCleared: number;
  /** Label changes left for a later run (MAX_HEALTH_WRITES_PER_RUN). */
  healthWritesSkippedBudget: number;
  nodesEvaluated: number;
  nodesWithoutMetrics: number;
  nodeUtilizationWritten: number;
  nodeWritesSkippedUnchanged: number;
  nodeWritesSkippedBudget: number;
  metricQueries: number;
  /** The deletion costs computed this run (written or not), per range. */
  deletionCosts: Record<CostRange, number>;
  /** GPUs and pending GPU pods from this run's listings; absent when a listing failed. */
  outcome?: ReconcileOutcome;
  errors: ReconcileError[];
}

/** A run that has counted nothing yet. */
export function emptySummary(): ReconcileSummary {
  return {
    podsEvaluated: 0,
    podsWarmingUp: 0,
    podsWithoutMetrics: 0,
    deletionCostsWritten: 0,
    skippedUnchanged: 0,
    skippedBudget: 0,
    skippedTerminating: 0,
    podsNotCovered: Object.fromEntries(UNCOVERED_OWNER_KINDS.map((kind) => [kind, 0])) as Record<UncoveredOwnerKind, number>,
    podsNotCoveredExamples: [],
    podsGone: 0,
    writeConflicts: 0,
    doNotDisruptSet: 0,
    doNotDisruptCleared: 0,
    podsOnUnhealthyNodes: 0,
    healthLabelsSet: 0,
    healthLabelsCleared: 0,
    healthWritesSkippedBudget: 0,
    nodesEvaluated: 0,
    nodesWithoutMetrics: 0,
    nodeUtilizationWritten: 0,
    nodeWritesSkippedUnchanged: 0,
    nodeWritesSkippedBudget: 0,
    metricQueries: 0,
    deletionCosts: emptyCostRanges(),
    errors: [],
  };
}

/**
 * One reconcile pass: list pods and GPU nodes once, measure the cluster
 * outcome from them (GPUs, pending GPU pods), read the opted-in pods' (and
 * nodes') metrics in one batched GetMetricData sweep, and patch only the
 * annotations whose bucket changed, within the per-run budgets. Only ReplicaSet-owned pods get
 * a deletion cost; other opted-in pods are counted, never written. Never throws: every failure
 * lands in `summary.errors`, and a failed metric read writes nothing (no data
 * must never look like "all pods went idle").
 */
export async function reconcile(settings: ReconcilerSettings, deps: ReconcileDeps): Promise<ReconcileSummary> {
  const summary = emptySummary();
  const now = deps.now();

  const listed = await attempt(summary, 'listPods', () => deps.cluster.listPods());
  // Listed even without node utilization: the outcome metrics count their GPUs.
  const listedNodes = await attempt(summary, 'listNodes', () => deps.cluster.listNodes());
  if (listed !== undefined && listedNodes !== undefined) {
    // Only the outcome reads them: if they cannot be listed, the error is
    // counted and the outcome holds the device-plugin GPUs alone (DRA nodes
    // then show none) rather than no outcome at all.
    const resourceSlices = (await attempt(summary, 'listResourceSlices', () => deps.cluster.listGpuResourceSlices())) ?? [];
    const resourceClaims = (await attempt(summary, 'listResourceClaims', () => deps.cluster.listResourceClaims())) ?? [];
    // Without them every pending pod counts as waiting for a fit: counted as an error, not fatal.
    const nominations = (await attempt(summary, 'listEvents', () => deps.cluster.listNominations())) ?? [];
    const health = settings.health.enabled ? await planHealth(listedNodes, resourceSlices, now, settings.health, summary, deps) : undefined;
    summary.outcome = reconcileOutcome(
      health?.nodesAfter ?? listedNodes,
      listed.all,
      { resourceSlices, resourceClaims },
      settings.schedulerName,
      now,
      { nominations, settings: settings.capacity },
      (node) => health?.degradedClasses.get(node),
    );
    if (health !== undefined) await writeHealthLabels(health, settings.health, summary, deps);
  }
  // Before the metric read: these writes depend on the pods' phase alone,
  // and a CloudWatch outage must not leave a training pod unprotected.
  if (listed !== undefined && settings.karpenterDoNotDisrupt) await guardPods(listed.all, summary, deps);
  const pods = listed?.optedIn;
  const nodes = settings.nodes.enabled ? listedNodes : undefined;

  const livePods: PodView[] = [];
  for (const pod of pods ?? []) {
    const view = podView(pod);
    if (view === undefined) continue;
    const coverage = deletionCostCoverage(view.controller);
    if (coverage !== 'covered') {
      summary.podsNotCovered[coverage] += 1;
      if (summary.podsNotCoveredExamples.length < NOT_COVERED_EXAMPLES) summary.podsNotCoveredExamples.push(describeOwner(view));
    } else if (view.terminating) summary.skippedTerminating += 1;
    else livePods.push(view);
  }
  // Pods on failing or degraded nodes and warming-up pods get a fixed cost, so their metrics are not even asked for.
  const avoided = summary.outcome?.health.avoidedNodes;
  const onUnhealthyNode = (pod: PodView): boolean => pod.nodeName !== undefined && avoided?.has(pod.nodeName) === true;
  const measured = livePods.filter((pod) => !onUnhealthyNode(pod) && !isWarmingUp(secondsSince(pod.readySince, now), settings.policy));
  const nodeViews = (nodes ?? []).map(nodeView).filter((node): node is NodeView => node !== undefined);

  const podPlan = podMetricPlan(measured, settings.podMetrics);
  const nodePlan = nodeMetricPlan(nodeViews, settings.nodes.metrics);
  const queries = [...podPlan.queries, ...nodePlan.queries];
  summary.metricQueries = queries.length;
  const lookbackMs = Math.max(settings.podMetrics.periodSeconds, settings.nodes.metrics.periodSeconds) * 1000;
  const values =
    queries.length === 0
      ? new Map<string, number>()
      : await attempt(summary, 'readMetrics', () =>
          deps.metrics.latestValues(queries, { start: new Date(now.getTime() - lookbackMs), end: now }),
        );
  if (values === undefined) return summary;

  if (pods !== undefined) {
    const measuredIndex = new Map(measured.map((pod, index) => [pod, index]));
    const candidates = livePods.map((pod) => {
      const index = measuredIndex.get(pod);
      return podCandidate(pod, index === undefined ? NO_SIGNALS : podPlan.signalsFor(index, values), now, settings, summary, onUnhealthyNode(pod));
    });
    const plan = planWrites(candidates, settings.maxPodWritesPerRun);
    summary.skippedUnchanged += plan.unchanged;
    summary.skippedBudget += plan.overBudget;
    for (const { item, value } of plan.writes) {
      const annotations: Record<string, string | null> = { [POD_DELETION_COST_ANNOTATION]: value };
      if (settings.karpenterDisruptionCost) annotations[KARPENTER_DISRUPTION_COST_ANNOTATION] = karpenterDisruptionCost(value, settings.policy.maxCost);
      const outcome = await attempt(summary, 'patchPod', () => deps.writer.patchPodAnnotations(item.namespace, item.name, annotations));
      if (outcome === 'written') summary.deletionCostsWritten += 1;
      else if (outcome === 'gone') summary.podsGone += 1;
      else if (outcome === 'conflict') summary.writeConflicts += 1;
    }
  }

  if (nodes !== undefined) {
    const candidates = nodeViews.map((node, index) => nodeCandidate(node, nodePlan.utilizationFor(index, values), settings.nodes, summary));
    const plan = planWrites(candidates, settings.nodes.maxWritesPerRun);
    summary.nodeWritesSkippedUnchanged += plan.unchanged;
    summary.nodeWritesSkippedBudget += plan.overBudget;
    for (const { item, value } of plan.writes) {
      const outcome = await attempt(summary, 'patchNode', () => deps.writer.patchNodeAnnotation(item.name, settings.nodes.annotation, value));
      if (outcome === 'written') summary.nodeUtilizationWritten += 1;
      else if (outcome === 'conflict') summary.writeConflicts += 1;
    }
  }
  return summary;
}

/**
 * karpenter.sh/do-not-disrupt on the opted-in pods now bound, off the
 * finished ones that carry ours. No per-run budget: these are one write per
 * pod start and one per pod end, and a missed one is a training run
 * Karpenter may interrupt.
 */
async function guardPods(unfinished: readonly V1Pod[], summary: ReconcileSummary, deps: ReconcileDeps): Promise<void> {
  // A failed listing of finished pods only delays their cleanup: they block no Karpenter decision.
  const finished = (await attempt(summary, 'listFinishedPods', () => deps.cluster.listFinishedOwnedPods())) ?? [];
  for (const change of doNotDisruptChanges([...unfinished, ...finished])) {
    const outcome = await attempt(summary, 'patchPod', () => deps.writer.patchPodMetadata(change.namespace, change.name, change.patch));
    if (outcome === 'written') summary[change.kind === 'set' ? 'doNotDisruptSet' : 'doNotDisruptCleared'] += 1;
    else if (outcome === 'gone') summary.podsGone += 1;
    else if (outcome === 'conflict') summary.writeConflicts += 1;
  }
}

/**
 * The degraded label's plan from the node monitoring agent's warning events
 * and the DRA taints of effect None. A failed event listing is counted and
 * removes no label (no data is not a quiet node).
 */
async function planHealth(
  nodes: readonly V1Node[],
  resourceSlices: readonly V1ResourceSlice[],
  now: Date,
  settings: GpuHealthSettings,
  summary: ReconcileSummary,
  deps: ReconcileDeps,
): Promise<GpuHealthLabelPlan> {
  const events = await attempt(summary, 'listNodeEvents', () => deps.cluster.listNodeWarnings());
  const dra = draInventoryFromKubernetes(resourceSlices).gpusByNode;
  return planGpuHealthLabels(nodes, events ?? [], dra, now, settings, events !== undefined);
}

/** The plan's label changes, new labels before removals, at most MAX_HEALTH_WRITES_PER_RUN. */
async function writeHealthLabels(plan: GpuHealthLabelPlan, settings: GpuHealthSettings, summary: ReconcileSummary, deps: ReconcileDeps): Promise<void> {
  const ordered = [...plan.changes].sort((a, b) => Number(a.label === null) - Number(b.label === null));
  const budget = Math.max(0, settings.maxWritesPerRun);
  summary.healthWritesSkippedBudget += Math.max(0, ordered.length - budget);
  for (const change of ordered.slice(0, budget)) {
    const outcome = await attempt(summary, 'patchNode', () => deps.writer.patchNodeHealth(change.node, change.label, change.reasons));
    if (outcome === 'written') summary[change.label === null ? 'healthLabelsCleared' : 'healthLabelsSet'] += 1;
    else if (outcome === 'conflict') summary.writeConflicts += 1;
  }
}

const NOT_COVERED_EXAMPLES = 5;

function describeOwner(pod: PodView): string {
  const owner = pod.controller ? `${pod.controller.apiVersion} ${pod.controller.kind}` : 'no controller';
  return `${pod.namespace}/${pod.name} (${owner})`;
}

const NO_SIGNALS: PodSignals = { activeRequests: undefined, cacheHitRate: undefined, avgResponseTimeMs: undefined };

function podCandidate(pod: PodView, signals: PodSignals, now: Date, settings: ReconcilerSettings, summary: ReconcileSummary, onUnhealthyNode: boolean): WriteCandidate<PodView> {
  const cost = podDeletionCost({ signals, readySeconds: secondsSince(pod.readySince, now), onUnhealthyNode }, settings.policy);
  summary.podsEvaluated += 1;
  summary.deletionCosts[costRange(cost.raw)] += 1;
  if (cost.basis === 'unhealthyNode') summary.podsOnUnhealthyNodes += 1;
  if (cost.basis === 'warmup') summary.podsWarmingUp += 1;
  if (cost.basis === 'noSignal') summary.podsWithoutMetrics += 1;
  // A pod without the annotation already costs 0 to the ReplicaSet controller.
  let decision = decideWrite({ current: pod.currentCost, raw: cost.raw, absentMeans: 0 }, settings.podDiscipline);
  if (decision.kind === 'unchanged' && settings.karpenterDisruptionCost && pod.currentCost !== undefined) {
    // The cost stands, but Karpenter's copy is missing or stale (e.g. the
    // first run with it on): write the same cost again with it, after every
    // real change (magnitude 0).
    const wanted = karpenterDisruptionCost(pod.currentCost, settings.policy.maxCost);
    if (wanted !== null && wanted !== pod.currentKarpenterCost) decision = { kind: 'write', value: pod.currentCost, magnitude: 0 };
  }
  return { item: pod, key: `${pod.namespace}/${pod.name}`, decision };
}

function nodeCandidate(node: NodeView, reading: number | undefined, settings: NodeUtilizationSettings, summary: ReconcileSummary): WriteCandidate<NodeView> {
  const utilization = sanitisePercent(reading);
  summary.nodesEvaluated += 1;
  if (utilization === undefined) summary.nodesWithoutMetrics += 1;
  return {
    item: node,
    key: node.name,
    // Absent means "unknown" to the extender, so no signal removes a stale value.
    decision: decideWrite({ current: node.annotations[settings.annotation], raw: utilization, absentMeans: undefined }, settings.discipline),
  };
}

const STEP_KIND: Readonly<Record<ReconcileStep, ReconcileErrorKind>> = {
  listPods: 'Kubernetes',
  listNodes: 'Kubernetes',
  listResourceSlices: 'Kubernetes',
  listResourceClaims: 'Kubernetes',
  listFinishedPods: 'Kubernetes',
  listEvents: 'Kubernetes',
  listNodeEvents: 'Kubernetes',
  readMetrics: 'CloudWatch',
  patchPod: 'Kubernetes',
  patchNode: 'Kubernetes',
};

/** True when a step failed that left the whole run without effect (worth a Lambda error and a retry). */
export function runFailed(summary: ReconcileSummary): boolean {
  return summary.errors.some((e) => e.step === 'listPods' || e.step === 'listNodes' || e.step === 'readMetrics');
}

async function attempt<T>(summary: ReconcileSummary, step: ReconcileStep, action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    summary.errors.push({ kind: STEP_KIND[step], step, message: errorMessage(error) });
    return undefined;
  }
}
