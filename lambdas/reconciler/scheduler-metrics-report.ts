import { METRIC, SCHEDULE_ATTEMPT_RESULTS, SCHEDULER_QUEUES } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { SchedulerMetricsSummary } from './scheduler-metrics-step';

/**
 * The second scheduler's metrics as catalog metrics. Every result and queue
 * is recorded, 0 included, whenever the run has an answer for them, so that
 * "no attempts" is a 0 on the dashboard and only "no answer" is missing data.
 */
export function recordSchedulerMetrics(telemetry: Telemetry, summary: SchedulerMetricsSummary): void {
  if (summary.readyReplicas !== undefined) telemetry.record(METRIC.gpuSchedulerReadyReplicas, summary.readyReplicas);
  const { interval, pendingPods } = summary;
  if (interval) {
    for (const result of SCHEDULE_ATTEMPT_RESULTS) telemetry.record(METRIC.gpuSchedulerAttempts, interval.attempts[result] ?? 0, { Result: result });
    if (interval.meanAttemptMs !== undefined) telemetry.record(METRIC.gpuSchedulerAttemptLatency, interval.meanAttemptMs);
  }
  if (pendingPods) {
    for (const queue of SCHEDULER_QUEUES) telemetry.record(METRIC.gpuSchedulerPendingPods, pendingPods[queue] ?? 0, { Queue: queue });
  }
  if (summary.failures.length > 0) {
    telemetry.record(METRIC.reconcilerErrors, summary.failures.length, { Kind: 'SchedulerMetrics' });
    telemetry.logger.warn('reading the second scheduler’s metrics failed', { failures: summary.failures });
  }
}
