import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { ReconcileSummary } from './reconcile';

/** One run's counts as catalog metrics (the dashboard reads these), and a warning naming opted-in pods nothing honours a cost on. */
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
  for (const kind of ['CloudWatch', 'Kubernetes'] as const) {
    const count = summary.errors.filter((e) => e.kind === kind).length;
    if (count > 0) telemetry.record(METRIC.reconcilerErrors, count, { Kind: kind });
  }
}
