// The EventBridge side of the pipeline, locally: events shaped exactly as
// EventBridge delivers them to a Lambda target, rate() schedules, and Lambda's
// asynchronous-invocation retries (shortened: AWS waits about 1 and 2 minutes).
import { randomUUID } from 'node:crypto';
import type { LocalLambda } from './local-lambda';
import { errorMessage } from '../../lambdas/common/error-message';

export const LOCAL_ACCOUNT_ID = '123456789012';
const STOP_GRACE_MS = 3_000;

/** What a delivery needs of a function: LocalLambda, or a stand-in in unit tests. */
export type DeliveryTarget = Pick<LocalLambda, 'functionName' | 'invoke'>;

export interface EventBridgeEvent {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  /** Second precision, as EventBridge writes it. */
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

const eventTime = (date: Date): string => `${date.toISOString().slice(0, 19)}Z`;

/** "EC2 Instance State-change Notification" from aws.ec2. */
export function ec2StateChangeEvent(instanceId: string, state: string, region: string, now = new Date()): EventBridgeEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'EC2 Instance State-change Notification',
    source: 'aws.ec2',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(now),
    region,
    resources: [`arn:aws:ec2:${region}:${LOCAL_ACCOUNT_ID}:instance/${instanceId}`],
    detail: { 'instance-id': instanceId, state },
  };
}

/** What a schedule rule (`rate(N minutes)`) delivers. */
export function scheduledEvent(ruleName: string, region: string, now = new Date()): EventBridgeEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: eventTime(now),
    region,
    resources: [`arn:aws:events:${region}:${LOCAL_ACCOUNT_ID}:rule/${ruleName}`],
    detail: {},
  };
}

export interface Delivery {
  functionName: string;
  event: EventBridgeEvent;
  /** 1 = first try. */
  attempts: number;
  ok: boolean;
  /** Date.now() when the last attempt ended. */
  finishedAt: number;
  result?: unknown;
  /** The last error when every attempt failed (the event would go to the DLQ). */
  error?: string;
}

export interface RetryPolicy {
  /** Retries after the first attempt (the function's `retryAttempts`, 0..2). */
  retryAttempts: number;
  /** Delay before retry n (1-based) is `baseDelayMs * n`. */
  baseDelayMs: number;
}

/** Delivers events to local Lambdas asynchronously and reports every outcome. */
export class LocalEventBridge {
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Retry back-offs in progress: stop() ends them at once. */
  private readonly sleeping = new Map<NodeJS.Timeout, () => void>();
  private readonly inFlight = new Set<Promise<Delivery>>();
  private stopped = false;

  constructor(private readonly onDelivery: (delivery: Delivery) => void) {}

  /** An asynchronous invocation: the handler's failure is retried per `retry`, then dropped (DLQ). */
  deliver(target: DeliveryTarget, event: EventBridgeEvent, retry: RetryPolicy): Promise<Delivery> {
    const run = async (): Promise<Delivery> => {
      let lastError = '';
      for (let attempt = 1; attempt <= retry.retryAttempts + 1; attempt++) {
        if (this.stopped) break;
        try {
          const result = await target.invoke(event);
          return { functionName: target.functionName, event, attempts: attempt, ok: true, finishedAt: Date.now(), result };
        } catch (error) {
          lastError = errorMessage(error);
          if (attempt <= retry.retryAttempts) await this.sleep(retry.baseDelayMs * attempt);
        }
      }
      return { functionName: target.functionName, event, attempts: retry.retryAttempts + 1, ok: false, finishedAt: Date.now(), error: lastError };
    };
    const delivery = run().then((d) => {
      if (!this.stopped) this.onDelivery(d);
      return d;
    });
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
    return delivery;
  }

  /** A `rate(N minutes)` rule: the first event after one period, then every period. */
  schedule(ruleName: string, target: DeliveryTarget, periodMs: number, region: string, retry: RetryPolicy): void {
    const timer = setInterval(() => {
      void this.deliver(target, scheduledEvent(ruleName, region), retry);
    }, periodMs);
    timer.unref();
    this.timers.add(timer);
  }

  /**
   * Stops the schedules and waits for deliveries in flight to end, at most
   * `graceMs`: a labeler invocation may be waiting minutes for a node that
   * will never register, and Ctrl-C must not wait for it (stopping the
   * Lambda workers afterwards ends such invocations).
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.clear();
    for (const [timer, wake] of this.sleeping) {
      clearTimeout(timer);
      wake();
    }
    this.sleeping.clear();
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise<void>((resolve) => {
        grace = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(grace);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.sleeping.delete(timer);
        resolve();
      }, ms);
      this.sleeping.set(timer, resolve);
    });
  }
}
