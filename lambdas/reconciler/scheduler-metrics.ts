import type { PrometheusSample } from './prometheus-text';

/**
 * What one scrape of a kube-scheduler replica says about one profile. Names
 * and labels as kube-scheduler v1.35 and v1.36 register them (pkg/scheduler/metrics):
 * scheduler_schedule_attempts_total{result,profile} and
 * scheduler_scheduling_attempt_duration_seconds{result,profile} are STABLE,
 * scheduler_pending_pods{queue} is STABLE and not per profile (our second
 * scheduler runs only the gpu-scheduler profile), and client-go's
 * leader_election_master_status is 1 on the leader only.
 */
export interface SchedulerSnapshot {
  readonly attempts: Readonly<Record<string, number>>;
  readonly attemptSecondsSum: number;
  readonly attemptCount: number;
  readonly pendingPods: Readonly<Record<string, number>>;
  /** undefined: the replica runs no leader election (the local harness). */
  readonly leader: boolean | undefined;
}

export const SCHEDULE_ATTEMPTS = 'scheduler_schedule_attempts_total';
export const ATTEMPT_DURATION = 'scheduler_scheduling_attempt_duration_seconds';
export const PENDING_PODS = 'scheduler_pending_pods';
export const LEADER_STATUS = 'leader_election_master_status';

export function schedulerSnapshot(samples: readonly PrometheusSample[], profile: string): SchedulerSnapshot {
  const attempts: Record<string, number> = {};
  const pendingPods: Record<string, number> = {};
  let attemptSecondsSum = 0;
  let attemptCount = 0;
  let leader: boolean | undefined;
  for (const { name, labels, value } of samples) {
    if (name === PENDING_PODS && labels.queue !== undefined) {
      pendingPods[labels.queue] = (pendingPods[labels.queue] ?? 0) + value;
    } else if (name === LEADER_STATUS) {
      leader = (leader ?? false) || value === 1;
    } else if (labels.profile !== profile) {
      continue;
    } else if (name === SCHEDULE_ATTEMPTS && labels.result !== undefined) {
      attempts[labels.result] = (attempts[labels.result] ?? 0) + value;
    } else if (name === `${ATTEMPT_DURATION}_sum`) {
      attemptSecondsSum += value;
    } else if (name === `${ATTEMPT_DURATION}_count`) {
      attemptCount += value;
    }
  }
  return { attempts, attemptSecondsSum, attemptCount, pendingPods, leader };
}

/** One replica's scrape; `key` changes when the pod is replaced (its UID). */
export interface ReplicaSnapshot {
  readonly key: string;
  readonly snapshot: SchedulerSnapshot;
}

/** What the scheduler did since the previous run, summed over the replicas seen both times. */
export interface SchedulerInterval {
  readonly attempts: Readonly<Record<string, number>>;
  /** undefined when no attempt finished in the interval. */
  readonly meanAttemptMs: number | undefined;
}

/**
 * Turns kube-scheduler's cumulative counters into per-run deltas. The last
 * values live in the warm Lambda container's memory: a cold container (or a
 * replica seen for the first time) has no previous value and yields nothing
 * rather than a guess, so a cold start costs one data point. A counter that
 * went down was reset by a restart of the scheduler container in the same
 * pod; its whole current value is the increase, as Prometheus' increase() does.
 */
export class SchedulerCounterTracker {
  private last = new Map<string, SchedulerSnapshot>();

  /** undefined when none of the replicas was seen by the previous run. */
  observe(replicas: readonly ReplicaSnapshot[]): SchedulerInterval | undefined {
    const attempts: Record<string, number> = {};
    let seconds = 0;
    let count = 0;
    let compared = 0;
    for (const { key, snapshot } of replicas) {
      const previous = this.last.get(key);
      if (!previous) continue;
      compared += 1;
      for (const [result, value] of Object.entries(snapshot.attempts)) {
        attempts[result] = (attempts[result] ?? 0) + increase(previous.attempts[result] ?? 0, value);
      }
      const reset = snapshot.attemptCount < previous.attemptCount || snapshot.attemptSecondsSum < previous.attemptSecondsSum;
      seconds += reset ? snapshot.attemptSecondsSum : snapshot.attemptSecondsSum - previous.attemptSecondsSum;
      count += reset ? snapshot.attemptCount : snapshot.attemptCount - previous.attemptCount;
    }
    // Replicas gone since (rolled, rescheduled) are forgotten.
    this.last = new Map(replicas.map(({ key, snapshot }) => [key, snapshot]));
    if (compared === 0) return undefined;
    return { attempts, meanAttemptMs: count > 0 ? (seconds / count) * 1000 : undefined };
  }
}

function increase(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

/**
 * The queues of the replica that schedules: a follower's informers fill its
 * queue too, but it never pops it. Without leader election every replica
 * schedules (one, in practice) and the queues add up; while no replica leads
 * (an election in progress) there is no answer.
 */
export function leaderPendingPods(snapshots: readonly SchedulerSnapshot[]): Readonly<Record<string, number>> | undefined {
  const leaders = snapshots.filter((s) => s.leader === true);
  const counted = leaders.length > 0 ? leaders : snapshots.length > 0 && snapshots.every((s) => s.leader === undefined) ? snapshots : [];
  if (counted.length === 0) return undefined;
  const pending: Record<string, number> = {};
  for (const snapshot of counted) {
    for (const [queue, value] of Object.entries(snapshot.pendingPods)) pending[queue] = (pending[queue] ?? 0) + value;
  }
  return pending;
}
