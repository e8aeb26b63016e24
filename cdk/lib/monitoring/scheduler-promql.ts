// The second scheduler's own series in Prometheus, for the metrics the
// reconciler otherwise copies to CloudWatch from the same /metrics
// (lambdas/reconciler/scheduler-metrics.ts): read where they are born, not
// computed twice.
import { METRIC, type MetricKey } from '../../../lambdas/observability/metric-catalog';

export interface SchedulerSeries {
  /** The scrape job's `job` label (scheduler-scrape.ts). */
  readonly job: string;
  /** The profile's scheduler name (`profile` label of kube-scheduler's series). */
  readonly profile: string;
}

/** One Prometheus query: a panel's line, or its total when the panel shows a single number. */
export interface PromQuery {
  readonly expr: string;
  readonly legend: string;
}

/** Both forms of a metric: per dimension value (a graph's lines), and the total (a single value). */
export interface PromEquivalent {
  readonly byDimension: PromQuery;
  readonly total: PromQuery;
}

/** Grafana's rate window: at least four scrape intervals, whatever the scrape interval. */
const WINDOW = '$__rate_interval';

/**
 * The reconciler's copies of kube-scheduler's metrics and their PromQL.
 * kube-scheduler's pending queue is the leader's (a follower's informers fill
 * its queue too, but it never pops it); replicas without leader election
 * (one replica, or the local harness) report no leader_election_master_status
 * and are taken as they are, as the reconciler does.
 */
export function schedulerPromEquivalents(series: SchedulerSeries): Partial<Record<MetricKey, PromEquivalent>> {
  const sel = `job=${JSON.stringify(series.job)}`;
  const prof = `${sel}, profile=${JSON.stringify(series.profile)}`;
  const attemptsPerMinute = (by: string) => `sum${by} (rate(scheduler_schedule_attempts_total{${prof}}[${WINDOW}])) * 60`;
  const meanAttemptMs =
    `1000 * sum(rate(scheduler_scheduling_attempt_duration_seconds_sum{${prof}}[${WINDOW}]))` +
    ` / sum(rate(scheduler_scheduling_attempt_duration_seconds_count{${prof}}[${WINDOW}]))`;
  const pending = (by: string) =>
    `sum${by} (scheduler_pending_pods{${sel}} and on (pod) (leader_election_master_status{${sel}} == 1))` +
    ` or max${by} (scheduler_pending_pods{${sel}} unless on (pod) leader_election_master_status{${sel}})`;
  const replicasUp = { expr: `sum(up{${sel}})`, legend: 'replicas up' };
  return {
    gpuSchedulerAttempts: {
      byDimension: { expr: attemptsPerMinute(' by (result)'), legend: '{{result}}' },
      total: { expr: attemptsPerMinute(''), legend: 'attempts / min' },
    },
    gpuSchedulerAttemptLatency: { byDimension: { expr: meanAttemptMs, legend: 'attempt latency (ms)' }, total: { expr: meanAttemptMs, legend: 'attempt latency (ms)' } },
    gpuSchedulerPendingPods: {
      byDimension: { expr: pending(' by (queue)'), legend: '{{queue}}' },
      total: { expr: pending(''), legend: 'pending in queue' },
    },
    // Replicas whose /metrics answered: a replica that is not Ready usually does not answer either.
    gpuSchedulerReadyReplicas: { byDimension: replicasUp, total: replicasUp },
  };
}

/** The catalog key of a CloudWatch metric name, if it is one of ours. */
export function metricKeyOf(name: string): MetricKey | undefined {
  return (Object.keys(METRIC) as MetricKey[]).find((key) => METRIC[key].name === name);
}
