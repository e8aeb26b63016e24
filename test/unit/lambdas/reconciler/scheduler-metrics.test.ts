import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from '../../../../lambdas/reconciler/prometheus-text';
import type { SchedulerSnapshot } from '../../../../lambdas/reconciler/scheduler-metrics';
import { leaderPendingPods, SchedulerCounterTracker, schedulerSnapshot } from '../../../../lambdas/reconciler/scheduler-metrics';

// The shape kube-scheduler v1.35 serves (series trimmed to the ones read, plus neighbours that must be ignored).
const SCRAPE = `
# TYPE scheduler_schedule_attempts_total counter
scheduler_schedule_attempts_total{profile="gpu-scheduler",result="scheduled"} 7
scheduler_schedule_attempts_total{profile="gpu-scheduler",result="unschedulable"} 3
scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 100
scheduler_scheduling_attempt_duration_seconds_bucket{profile="gpu-scheduler",result="scheduled",le="0.001"} 0
scheduler_scheduling_attempt_duration_seconds_sum{profile="gpu-scheduler",result="scheduled"} 0.35
scheduler_scheduling_attempt_duration_seconds_count{profile="gpu-scheduler",result="scheduled"} 7
scheduler_scheduling_attempt_duration_seconds_sum{profile="gpu-scheduler",result="unschedulable"} 0.15
scheduler_scheduling_attempt_duration_seconds_count{profile="gpu-scheduler",result="unschedulable"} 3
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 99
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} 100
scheduler_pending_pods{queue="active"} 1
scheduler_pending_pods{queue="unschedulable"} 3
leader_election_master_status{name="gpu-scheduler"} 1
`;

const snap = (over: Partial<SchedulerSnapshot> = {}): SchedulerSnapshot => ({
  attempts: {},
  attemptSecondsSum: 0,
  attemptCount: 0,
  pendingPods: {},
  leader: undefined,
  ...over,
});

describe('schedulerSnapshot', () => {
  it('reads one profile’s attempts and durations, the queues and leadership', () => {
    expect(schedulerSnapshot(parsePrometheusText(SCRAPE), 'gpu-scheduler')).toEqual({
      attempts: { scheduled: 7, unschedulable: 3 },
      attemptSecondsSum: 0.5,
      attemptCount: 10,
      pendingPods: { active: 1, unschedulable: 3 },
      leader: true,
    });
  });

  it('tells a follower (status 0) from a replica without leader election (no series)', () => {
    expect(schedulerSnapshot(parsePrometheusText('leader_election_master_status{name="x"} 0'), 'p').leader).toBe(false);
    expect(schedulerSnapshot(parsePrometheusText('scheduler_pending_pods{queue="active"} 0'), 'p').leader).toBeUndefined();
  });
});

describe('SchedulerCounterTracker', () => {
  it('yields nothing on the first run, then the increase since the previous run', () => {
    const tracker = new SchedulerCounterTracker();
    expect(tracker.observe([{ key: 'a', snapshot: snap({ attempts: { scheduled: 5 }, attemptSecondsSum: 1, attemptCount: 5 }) }])).toBeUndefined();
    const interval = tracker.observe([
      { key: 'a', snapshot: snap({ attempts: { scheduled: 8, unschedulable: 2 }, attemptSecondsSum: 1.5, attemptCount: 10 }) },
    ]);
    expect(interval?.attempts).toEqual({ scheduled: 3, unschedulable: 2 });
    expect(interval?.meanAttemptMs).toBeCloseTo(100);
  });

  it('reports zero attempts and no latency when nothing happened', () => {
    const tracker = new SchedulerCounterTracker();
    const same = snap({ attempts: { scheduled: 4 }, attemptSecondsSum: 1, attemptCount: 4 });
    tracker.observe([{ key: 'a', snapshot: same }]);
    expect(tracker.observe([{ key: 'a', snapshot: same }])).toEqual({ attempts: { scheduled: 0 }, meanAttemptMs: undefined });
  });

  it('sums replicas seen both times, skips a new one and counts a reset counter from zero', () => {
    const tracker = new SchedulerCounterTracker();
    tracker.observe([
      { key: 'old', snapshot: snap({ attempts: { scheduled: 10 }, attemptSecondsSum: 2, attemptCount: 10 }) },
      { key: 'restarted', snapshot: snap({ attempts: { scheduled: 50 }, attemptSecondsSum: 9, attemptCount: 50 }) },
    ]);
    const interval = tracker.observe([
      { key: 'old', snapshot: snap({ attempts: { scheduled: 12 }, attemptSecondsSum: 2.2, attemptCount: 12 }) },
      { key: 'restarted', snapshot: snap({ attempts: { scheduled: 2 }, attemptSecondsSum: 0.6, attemptCount: 2 }) },
      { key: 'new', snapshot: snap({ attempts: { scheduled: 1000 }, attemptSecondsSum: 100, attemptCount: 1000 }) },
    ]);
    expect(interval?.attempts).toEqual({ scheduled: 4 });
    expect(interval?.meanAttemptMs).toBeCloseTo(200); // (0.2 + 0.6) s / 4
    // A replica that is gone is forgotten: when it is seen again it counts as new.
    tracker.observe([{ key: 'new', snapshot: snap() }]);
    expect(tracker.observe([{ key: 'old', snapshot: snap({ attempts: { scheduled: 99 } }) }])).toBeUndefined();
  });
});

describe('leaderPendingPods', () => {
  it('takes the leader’s queues, not a follower’s', () => {
    const leader = snap({ leader: true, pendingPods: { active: 1, unschedulable: 2 } });
    const follower = snap({ leader: false, pendingPods: { active: 9 } });
    expect(leaderPendingPods([follower, leader])).toEqual({ active: 1, unschedulable: 2 });
  });

  it('adds up replicas without leader election, and has no answer while none leads', () => {
    expect(leaderPendingPods([snap({ pendingPods: { active: 1 } }), snap({ pendingPods: { active: 2 } })])).toEqual({ active: 3 });
    expect(leaderPendingPods([snap({ leader: false, pendingPods: { active: 1 } })])).toBeUndefined();
    expect(leaderPendingPods([])).toBeUndefined();
  });
});
