import type { DeletionCostPolicy } from './deletion-cost-policy';
import { isWarmingUp, podDeletionCost } from './deletion-cost-policy';
import type { AnnotationWriter, ClusterReader, PatchOutcome } from './kube-objects';
import type { MetricReader } from './cloudwatch-metric-reader';
import type { NodeMetricSettings, PodMetricSettings } from './metric-queries';
import { nodeMetricPlan, podMetricPlan } from './metric-queries';
import type { NodeView, PodView } from './pod-view';
import { nodeView, POD_DELETION_COST_ANNOTATION, podView, secondsSince } from './pod-view';
import type { WriteCandidate, WriteDiscipline } from './write-discipline';
import { decideWrite, planWrites } from './write-discipline';

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
}

export interface ReconcileDeps {
  readonly cluster: ClusterReader;
  readonly writer: AnnotationWriter;
  readonly metrics: MetricReader;
  readonly now: () => Date;
}

export type ReconcileErrorKind = 'CloudWatch' | 'Kubernetes' | 'Unknown';

/** Where a failure happened; a failed list or metric read means the run did nothing useful. */
export type ReconcileStep = 'listPods' | 'listNodes' | 'readMetrics' | 'patchPod' | 'patchNode';

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
  podsGone: number;
  writeConflicts: number;
  nodesEvaluated: number;
  nodesWithoutMetrics: number;
  nodeUtilizationWritten: number;
  nodeWritesSkippedUnchanged: number;
  nodeWritesSkippedBudget: number;
  metricQueries: number;
  errors: ReconcileError[];
}

function emptySummary(): ReconcileSummary {
  return {
    podsEvaluated: 0,
    podsWarmingUp: 0,
    podsWithoutMetrics: 0,
    deletionCostsWritten: 0,
    skippedUnchanged: 0,
    skippedBudget: 0,
    skippedTerminating: 0,
    podsGone: 0,
    writeConflicts: 0,
    nodesEvaluated: 0,
    nodesWithoutMetrics: 0,
    nodeUtilizationWritten: 0,
    nodeWritesSkippedUnchanged: 0,
    nodeWritesSkippedBudget: 0,
    metricQueries: 0,
    errors: [],
  };
}

/**
 * One reconcile pass: list opted-in pods (and GPU nodes), read their metrics
 * in one batched GetMetricData sweep, and patch only the annotations whose
 * bucket changed, within the per-run budgets. Never throws: every failure
 * lands in `summary.errors`, and a failed metric read writes nothing (no data
 * must never look like "all pods went idle").
 */
export async function reconcile(settings: ReconcilerSettings, deps: ReconcileDeps): Promise<ReconcileSummary> {
  const summary = emptySummary();
  const now = deps.now();

  const pods = await attempt(summary, 'listPods', () => deps.cluster.listOptedInPods());
  const nodes = settings.nodes.enabled ? await attempt(summary, 'listNodes', () => deps.cluster.listNodes()) : [];

  const livePods: PodView[] = [];
  for (const pod of pods ?? []) {
    const view = podView(pod);
    if (view === undefined) continue;
    if (view.terminating) summary.skippedTerminating += 1;
    else livePods.push(view);
  }
  const warm = livePods.filter((pod) => !isWarmingUp(secondsSince(pod.readySince, now), settings.policy));
  const nodeViews = (nodes ?? []).map(nodeView).filter((node): node is NodeView => node !== undefined);

  const podPlan = podMetricPlan(warm, settings.podMetrics);
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
    const warmIndex = new Map(warm.map((pod, index) => [pod, index]));
    const candidates: WriteCandidate<PodView>[] = livePods.map((pod) => {
      const index = warmIndex.get(pod);
      const cost = podDeletionCost(
        {
          signals:
            index === undefined
              ? { activeRequests: undefined, cacheHitRate: undefined, avgResponseTimeMs: undefined }
              : podPlan.signalsFor(index, values),
          readySeconds: secondsSince(pod.readySince, now),
        },
        settings.policy,
      );
      summary.podsEvaluated += 1;
      if (cost.basis === 'warmup') summary.podsWarmingUp += 1;
      if (cost.basis === 'noSignal') summary.podsWithoutMetrics += 1;
      return {
        item: pod,
        key: `${pod.namespace}/${pod.name}`,
        decision: decideWrite({ current: pod.currentCost, raw: cost.raw, absentMeans: 0 }, settings.podDiscipline),
      };
    });
    const plan = planWrites(candidates, settings.maxPodWritesPerRun);
    summary.skippedUnchanged += plan.unchanged;
    summary.skippedBudget += plan.overBudget;
    for (const { item, value } of plan.writes) {
      const outcome = await attempt(summary, 'patchPod', () =>
        deps.writer.patchPodAnnotation(item.namespace, item.name, POD_DELETION_COST_ANNOTATION, value),
      );
      countOutcome(summary, outcome, 'pod');
    }
  }

  if (nodes !== undefined && settings.nodes.enabled) {
    const candidates: WriteCandidate<NodeView>[] = nodeViews.map((node, index) => {
      summary.nodesEvaluated += 1;
      const utilization = sanitisePercent(nodePlan.utilizationFor(index, values));
      if (utilization === undefined) summary.nodesWithoutMetrics += 1;
      return {
        item: node,
        key: node.name,
        decision: decideWrite(
          // Absent means "unknown" to the extender, so no signal removes a stale value.
          { current: node.annotations[settings.nodes.annotation], raw: utilization, absentMeans: undefined },
          settings.nodes.discipline,
        ),
      };
    });
    const plan = planWrites(candidates, settings.nodes.maxWritesPerRun);
    summary.nodeWritesSkippedUnchanged += plan.unchanged;
    summary.nodeWritesSkippedBudget += plan.overBudget;
    for (const { item, value } of plan.writes) {
      const outcome = await attempt(summary, 'patchNode', () =>
        deps.writer.patchNodeAnnotation(item.name, settings.nodes.annotation, value),
      );
      countOutcome(summary, outcome, 'node');
    }
  }
  return summary;
}

/** Container Insights reports percent; anything outside 0..100 is clamped, non-finite is no signal. */
export function sanitisePercent(value: number | undefined): number | undefined {
  if (value === undefined || !Number.isFinite(value)) return undefined;
  return Math.min(100, Math.max(0, value));
}

function countOutcome(summary: ReconcileSummary, outcome: PatchOutcome | undefined, target: 'pod' | 'node'): void {
  if (outcome === 'written') {
    if (target === 'pod') summary.deletionCostsWritten += 1;
    else summary.nodeUtilizationWritten += 1;
  } else if (outcome === 'gone' && target === 'pod') summary.podsGone += 1;
  else if (outcome === 'conflict') summary.writeConflicts += 1;
}

const STEP_KIND: Readonly<Record<ReconcileStep, ReconcileErrorKind>> = {
  listPods: 'Kubernetes',
  listNodes: 'Kubernetes',
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
    summary.errors.push({ kind: STEP_KIND[step], step, message: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}
