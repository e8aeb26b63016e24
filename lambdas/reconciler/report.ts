import { METRIC } from '../observability/metric-catalog';
import { recordNamespaceCost, recordReservedCapacity } from './cost-report';
import type { GpuModelValue } from './gpu-model-dimension';
import { gpuModelValue } from './gpu-model-dimension';
import type { Telemetry } from '../observability/telemetry';
import type { GpuOutcome } from '../scheduling/cluster-outcome';
import type { GpuHealthOutcome } from '../scheduling/gpu-health-outcome';
import { COST_RANGES } from '../observability/cost-ranges';
import type { ReconcileOutcome } from './outcome';
import type { ReconcileSummary } from './reconcile';

/** One run's counts as catalog metrics (the dashboard reads these), and warnings naming opted-in pods nothing honours a cost on and nodes whose GPUs are not counted. */
export function recordReconcile(telemetry: Telemetry, summary: ReconcileSummary): void {
  telemetry.record(METRIC.podsEvaluated, summary.podsEvaluated);
  telemetry.record(METRIC.deletionCostsWritten, summary.deletionCostsWritten);
  telemetry.record(METRIC.podsWithoutMetrics, summary.podsWithoutMetrics);
  telemetry.record(METRIC.nodeUtilizationWritten, summary.nodeUtilizationWritten);
  telemetry.record(METRIC.writesSkipped, summary.skippedUnchanged, { Reason: 'Unchanged' });
  telemetry.record(METRIC.writesSkipped, summary.skippedBudget, { Reason: 'Budget' });
  telemetry.record(METRIC.writesSkipped, summary.skippedTerminating, { Reason: 'Terminating' });
  const notCovered = Object.entries(summary.podsNotCovered).filter(([, count]) => count > 0);
  for (const [kind, count] of notCovered) telemetry.record(METRIC.podsNotCovered, count, { OwnerKind: kind });
  if (notCovered.length > 0) {
    telemetry.logger.warn('opted-in pods left without a deletion cost: only ReplicaSet-owned pods (Deployments) have a controller that reads it', {
      byOwnerKind: Object.fromEntries(notCovered),
      examples: summary.podsNotCoveredExamples,
    });
  }
  // Only when something was evaluated: an empty run is no evidence of any distribution.
  if (summary.podsEvaluated > 0) for (const range of COST_RANGES) telemetry.record(METRIC.deletionCosts, summary.deletionCosts[range], { Range: range });
  if (summary.outcome !== undefined) recordOutcome(telemetry, summary.outcome);
  if (summary.outcome !== undefined && summary.outcome.invalidNodes.count > 0) {
    telemetry.logger.warn('nodes left out of the GPU counts: their GPU data (labels or ResourceSlices) cannot be trusted', {
      nodes: summary.outcome.invalidNodes.count,
      examples: summary.outcome.invalidNodes.examples,
    });
  }
  for (const kind of ['CloudWatch', 'Kubernetes'] as const) {
    const count = summary.errors.filter((e) => e.kind === kind).length;
    if (count > 0) telemetry.record(METRIC.reconcilerErrors, count, { Kind: kind });
  }
}

/**
 * The outcome numbers. Pending count and age are written as 0 when nothing
 * waits, so an alarm sees a healthy value rather than missing data; reasons
 * only when some pod has one.
 */
function recordOutcome(telemetry: Telemetry, outcome: ReconcileOutcome): void {
  const { gpus, pending } = outcome;
  telemetry.record(METRIC.gpusAllocatable, gpus.allocatable);
  telemetry.record(METRIC.gpusAllocated, gpus.allocated);
  telemetry.record(METRIC.gpusIdle, gpus.idle);
  telemetry.record(METRIC.gpusStranded, gpus.stranded);
  const byValue = new Map<GpuModelValue, GpuOutcome[]>();
  for (const [model, o] of Object.entries(outcome.byModel)) {
    const value = gpuModelValue(model);
    byValue.set(value, [...(byValue.get(value) ?? []), o]);
  }
  const sum = (list: readonly GpuOutcome[], pick: (o: GpuOutcome) => number): number => Math.round(list.reduce((total, o) => total + pick(o), 0) * 100) / 100;
  for (const [GpuModel, list] of byValue) {
    telemetry.record(METRIC.gpusByModel, sum(list, (o) => o.allocatable), { GpuModel, State: 'Allocatable' });
    telemetry.record(METRIC.gpusByModel, sum(list, (o) => o.allocated), { GpuModel, State: 'Allocated' });
    telemetry.record(METRIC.gpusByModel, sum(list, (o) => o.idle), { GpuModel, State: 'Idle' });
    telemetry.record(METRIC.gpusByModel, sum(list, (o) => o.stranded), { GpuModel, State: 'Stranded' });
  }
  telemetry.record(METRIC.gpuPodsPending, pending.count);
  telemetry.record(METRIC.gpuPodsAwaitingAdmission, pending.gated);
  const { capacity } = outcome;
  telemetry.record(METRIC.gpuNodes, capacity.gpuNodes);
  telemetry.record(METRIC.gpuNodesLaunched, capacity.launched);
  telemetry.record(METRIC.gpuNodesTerminating, capacity.terminating);
  telemetry.record(METRIC.gpuNodesHourlyCost, capacity.hourlyCostUsd);
  telemetry.record(METRIC.gpuNodesUnpriced, capacity.unpriced);
  telemetry.record(METRIC.gpuPodsWaitingForCapacity, capacity.waitingForCapacity);
  telemetry.record(METRIC.gpuPodsWaitingForFit, capacity.waitingForFit);
  if (capacity.unpriced > 0) {
    telemetry.logger.warn('GPU nodes left out of the hourly cost: no price for their instance type (set GPU_PRICES_USD)', {
      nodes: capacity.unpriced,
      instanceTypes: capacity.unpricedTypes,
    });
  }
  recordReservedCapacity(telemetry, outcome.reserved);
  recordNamespaceCost(telemetry, outcome.namespaceCost);
  telemetry.record(METRIC.oldestPendingGpuPodAge, pending.oldestSeconds ?? 0);
  for (const { code, pods } of pending.reasons) telemetry.record(METRIC.gpuPodsPendingByReason, pods, { Reason: code });
  recordGpuHealth(telemetry, outcome.health);
}

/** Nodes named in the warning about failing GPU nodes. */
const FAILING_EXAMPLES = 5;

/** The GPU health numbers; by model and by class only where there are some. */
function recordGpuHealth(telemetry: Telemetry, health: GpuHealthOutcome): void {
  telemetry.record(METRIC.gpusUnhealthy, health.unhealthy);
  telemetry.record(METRIC.gpusDegraded, health.degraded);
  telemetry.record(METRIC.gpuNodesFailing, health.failingNodes);
  telemetry.record(METRIC.oldestFailingGpuNodeAge, health.oldestFailingSeconds);
  telemetry.record(METRIC.gpuPodsOnDegradedNodes, health.podsOnDegradedNodes);
  const byModel = new Map<GpuModelValue, { unhealthy: number; degraded: number }>();
  for (const { key, unhealthy, degraded } of health.byModel) {
    const value = gpuModelValue(key);
    const sum = byModel.get(value) ?? { unhealthy: 0, degraded: 0 };
    byModel.set(value, { unhealthy: sum.unhealthy + unhealthy, degraded: sum.degraded + degraded });
  }
  for (const [GpuModel, { unhealthy, degraded }] of byModel) {
    if (unhealthy > 0) telemetry.record(METRIC.gpuHealthByModel, unhealthy, { GpuModel, State: 'Unhealthy' });
    if (degraded > 0) telemetry.record(METRIC.gpuHealthByModel, degraded, { GpuModel, State: 'Degraded' });
  }
  for (const { key: Class, unhealthy, degraded } of health.byClass) {
    if (unhealthy > 0) telemetry.record(METRIC.gpuHealthByClass, unhealthy, { Class, State: 'Unhealthy' });
    if (degraded > 0) telemetry.record(METRIC.gpuHealthByClass, degraded, { Class, State: 'Degraded' });
  }
  if (health.failingNodes > 0) {
    telemetry.logger.warn('GPU nodes failing (AcceleratedHardwareReady=False): no GPU pod is placed there until node repair replaces or reboots them', {
      nodes: health.failingNodes,
      examples: health.failing.slice(0, FAILING_EXAMPLES),
    });
  }
}
