import { errorMessage } from '../common/error-message';
import { kubeStatusCode } from '../kube';
import { parsePrometheusText } from './prometheus-text';
import type { SchedulerInterval, SchedulerSnapshot } from './scheduler-metrics';
import { leaderPendingPods, schedulerSnapshot, type SchedulerCounterTracker } from './scheduler-metrics';
import type { SchedulerMetricsSource } from './scheduler-metrics-source';

export interface SchedulerMetricsDeps {
  readonly source: SchedulerMetricsSource;
  /** Lives as long as the warm container: the previous run's counters. */
  readonly tracker: SchedulerCounterTracker;
  readonly profile: string;
}

export interface SchedulerMetricsSummary {
  /** undefined when the replicas could not be listed. */
  readonly readyReplicas: number | undefined;
  readonly scraped: number;
  /** undefined on a cold container's first run or when no replica could be compared. */
  readonly interval: SchedulerInterval | undefined;
  /** undefined when no replica leads (or none was scraped). */
  readonly pendingPods: Readonly<Record<string, number>> | undefined;
  /** One line per failed list or scrape; the reconcile goes on regardless. */
  readonly failures: readonly string[];
}

/**
 * Scrapes every ready replica of the second scheduler once. Best effort: a
 * failure is reported, never thrown, so it cannot fail (and retry) the
 * deletion-cost run it rides along with.
 */
export async function observeSecondScheduler(deps: SchedulerMetricsDeps): Promise<SchedulerMetricsSummary> {
  let replicas;
  try {
    replicas = await deps.source.listReplicas();
  } catch (error) {
    return { readyReplicas: undefined, scraped: 0, interval: undefined, pendingPods: undefined, failures: [`list replicas: ${failureText(error)}`] };
  }
  const ready = replicas.filter((r) => r.ready);
  const failures: string[] = [];
  const scraped: { key: string; snapshot: SchedulerSnapshot }[] = [];
  for (const replica of ready) {
    try {
      const snapshot = schedulerSnapshot(parsePrometheusText(await deps.source.scrape(replica)), deps.profile);
      scraped.push({ key: replica.uid, snapshot });
    } catch (error) {
      failures.push(`scrape ${replica.name}: ${failureText(error)}`);
    }
  }
  return {
    readyReplicas: ready.length,
    scraped: scraped.length,
    interval: deps.tracker.observe(scraped),
    pendingPods: leaderPendingPods(scraped.map((s) => s.snapshot)),
    failures,
  };
}

/** The API server's status and message, without the client's dump of headers. */
function failureText(error: unknown): string {
  const code = kubeStatusCode(error);
  if (code === undefined) return errorMessage(error);
  const body = typeof error === 'object' && error !== null && 'body' in error ? error.body : undefined;
  try {
    const status = JSON.parse(typeof body === 'string' ? body : '') as { message?: unknown };
    if (typeof status.message === 'string') return `HTTP ${code}: ${status.message}`;
  } catch {
    // Not a Status object (e.g. the scheduler's own answer, proxied): the code says enough.
  }
  return `HTTP ${code}`;
}
