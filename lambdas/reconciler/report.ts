import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { ReconcileSummary } from './reconcile';

/** One run's counts as catalog metrics (the dashboard reads these). */
export function recordReconcile(telemetry: Telemetry, summary: ReconcileSummary): void {
  telemetry.record(METRIC.podsEvaluated, summary.podsEvaluated);
  telemetry.record(METRIC.deletionCostsWritten, summary.deletionCostsWritten);
  telemetry.record(METRIC.podsWithoutMetrics, summary.podsWithoutMetrics);
  telemetry.record(METRIC.nodeUtilizationWritten, summary.nodeUtilizationWritten);
  telemetry.record(METRIC.writesSkipped, summary.skippedUnchanged, { Reason: 'Unchanged' });
  telemetry.record(METRIC.writesSkipped, summary.skippedBudget, { Reason: 'Budget' });
  telemetry.record(METRIC.writesSkipped, summary.skippedTerminating, { Reason: 'Terminating' });
  for (const kind of ['CloudWatch', 'Kubernetes'] as const) {
    const count = summary.errors.filter((e) => e.kind === kind).length;
    if (count > 0) telemetry.record(METRIC.reconcilerErrors, count, { Kind: kind });
  }
}
