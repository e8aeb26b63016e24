// Lambda stops an invocation at its timeout and resets the instance: the
// cluster listing it was running is lost and the next instance starts the
// same listing over, so a first listing longer than the timeout would never
// finish. A call therefore answers before its timeout and leaves the listing
// running: Lambda freezes the instance after the answer and thaws it for the
// next call, where the listing goes on ("background processes or callbacks
// ... resume if Lambda reuses the execution environment",
// https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClusterCache } from '../cluster-state/cluster-cache';
import type { Snapshot } from '../scheduling';

/** Time kept back from the Lambda's remaining time to answer in (the reply, the metrics flush), even at 0.29 vCPU. */
export const ANSWER_MARGIN_MS = 1_000;

/** How long a call may wait for the cluster cache: the Lambda's remaining time less the answer margin. */
export function callBudgetMs(remainingMs: number): number {
  return Math.max(0, remainingMs - ANSWER_MARGIN_MS);
}

/** The cluster cache was not ready within the call's budget; its listing goes on for a later call. */
export class CallBudgetExceededError extends Error {
  constructor(readonly budgetMs: number) {
    super(
      `the cluster listing did not finish within this call's ${Math.round(budgetMs)} ms (the Lambda's remaining time less ${ANSWER_MARGIN_MS} ms); ` +
        'it goes on in this instance, and a later call uses it',
    );
    this.name = 'CallBudgetExceededError';
  }
}

/** Runs calls with a deadline each, and gives the cluster cache as those calls see it. */
export interface CallBudgets {
  /** Runs `call` with `budgetMs` to wait for the cache (unbounded when undefined). */
  run<T>(budgetMs: number | undefined, call: () => Promise<T>): Promise<T>;
  /** The cache whose snapshot() rejects with CallBudgetExceededError once the calling request's budget is spent; the refresh itself goes on. */
  bound(cache: ClusterCache): ClusterCache;
}

/**
 * The deadline travels with the call through AsyncLocalStorage rather than
 * through every signature between the router and the cache reads (candidate
 * resolution, the filter memo, preemption): a local host serves calls
 * concurrently, each with its own deadline.
 */
export function createCallBudgets(now: () => number): CallBudgets {
  const deadlines = new AsyncLocalStorage<{ readonly deadline: number; readonly budgetMs: number }>();
  return {
    run: (budgetMs, call) => (budgetMs === undefined ? call() : deadlines.run({ deadline: now() + budgetMs, budgetMs }, call)),
    bound: (cache) => ({
      snapshot(options) {
        const snapshot = cache.snapshot(options);
        const call = deadlines.getStore();
        if (call === undefined) return snapshot;
        let timer: NodeJS.Timeout | undefined;
        // A snapshot already at hand wins the race (its reaction runs before any timer).
        const late = new Promise<Snapshot>((_, reject) => {
          timer = setTimeout(() => reject(new CallBudgetExceededError(call.budgetMs)), Math.max(0, call.deadline - now()));
        });
        return Promise.race([snapshot, late]).finally(() => clearTimeout(timer));
      },
    }),
  };
}
