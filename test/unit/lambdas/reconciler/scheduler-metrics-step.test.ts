// Faults the real API server and kube-scheduler do not produce on demand (a
// failed list, a body that is not the text format) through an in-process
// source; the working path runs against the real ones in
// test/e2e/scheduler-metrics.test.ts.
import { describe, expect, it } from 'vitest';
import { SchedulerCounterTracker } from '../../../../lambdas/reconciler/scheduler-metrics';
import type { SchedulerMetricsSource, SchedulerReplica } from '../../../../lambdas/reconciler/scheduler-metrics-source';
import { observeSecondScheduler } from '../../../../lambdas/reconciler/scheduler-metrics-step';

const replica = (name: string, ready = true): SchedulerReplica => ({ name, uid: `uid-${name}`, ready });
const text = (scheduled: number) =>
  `scheduler_schedule_attempts_total{profile="gpu-scheduler",result="scheduled"} ${scheduled}\nscheduler_pending_pods{queue="active"} 2\n`;

function source(replicas: SchedulerReplica[] | Error, bodies: Record<string, string | Error>): SchedulerMetricsSource & { scraped: string[] } {
  const scraped: string[] = [];
  return {
    scraped,
    listReplicas: () => (replicas instanceof Error ? Promise.reject(replicas) : Promise.resolve(replicas)),
    scrape(r) {
      scraped.push(r.name);
      const body = bodies[r.name];
      return body instanceof Error || body === undefined ? Promise.reject(body ?? new Error('no body')) : Promise.resolve(body);
    },
  };
}

describe('observeSecondScheduler', () => {
  it('reports a failed list without throwing, and no replica count', async () => {
    const summary = await observeSecondScheduler({ source: source(new Error('connection refused'), {}), tracker: new SchedulerCounterTracker(), profile: 'gpu-scheduler' });
    expect(summary).toEqual({ readyReplicas: undefined, scraped: 0, interval: undefined, pendingPods: undefined, failures: ['list replicas: connection refused'] });
  });

  it('scrapes only ready replicas and keeps the good ones when one answers garbage', async () => {
    const src = source([replica('a'), replica('b'), replica('starting', false)], { a: text(1), b: '<html>bad gateway</html>' });
    const tracker = new SchedulerCounterTracker();
    const first = await observeSecondScheduler({ source: src, tracker, profile: 'gpu-scheduler' });
    expect(src.scraped).toEqual(['a', 'b']);
    expect(first).toMatchObject({ readyReplicas: 2, scraped: 1, interval: undefined, pendingPods: { active: 2 } });
    expect(first.failures).toEqual([expect.stringMatching(/^scrape b: line 1: /)]);
  });

  it('turns two runs into a delta', async () => {
    const tracker = new SchedulerCounterTracker();
    await observeSecondScheduler({ source: source([replica('a')], { a: text(1) }), tracker, profile: 'gpu-scheduler' });
    const second = await observeSecondScheduler({ source: source([replica('a')], { a: text(4) }), tracker, profile: 'gpu-scheduler' });
    expect(second.interval).toEqual({ attempts: { scheduled: 3 }, meanAttemptMs: undefined });
    expect(second.failures).toEqual([]);
  });
});
