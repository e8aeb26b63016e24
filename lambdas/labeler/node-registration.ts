import type { V1Node } from '@kubernetes/client-node';

/** Time as the wait sees it; tests pass a manual one. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** Two ways to look for an instance's node: cheap enough to repeat every few seconds, and thorough. */
export interface NodeLookups {
  /** One GET by the name EKS gives the node (its private DNS name). */
  byName(): Promise<V1Node | undefined>;
  /** The GET plus a scan of the node list (custom node names, nodes without providerID). */
  thorough(): Promise<V1Node | undefined>;
  /** Whether the instance has ended (terminated, shutting down, unknown to EC2): its node will never come. Asked every ENDED_CHECK_INTERVAL_MS. */
  ended?(): Promise<boolean>;
}

export interface RegistrationWait {
  /** clock.now() value after which no more looks start. */
  readonly deadline: number;
  /** Delay between looks doubles from FIRST_DELAY_MS up to this. */
  readonly pollMaxMs: number;
}

export interface RegistrationResult {
  readonly node: V1Node | undefined;
  readonly waitedMs: number;
  readonly looks: number;
}

const FIRST_DELAY_MS = 1_000;
/**
 * A list scan costs the API server a whole node list; hundreds of waiting
 * invocations during a scale-up must not do that every few seconds. On EKS
 * the GET by name finds the node, so the scan is the rare fallback.
 */
export const THOROUGH_LOOK_INTERVAL_MS = 60_000;
/** One DescribeInstances per waiting invocation this often: a Spot instance interrupted in its first minutes stops the wait within it. */
export const ENDED_CHECK_INTERVAL_MS = 30_000;

/**
 * Looks for the node until it appears, the instance ends, or the deadline passes: a thorough
 * look first, then GETs by name with backoff capped at `pollMaxMs` (so a node
 * is found within that long of registering), a thorough look at most every
 * THOROUGH_LOOK_INTERVAL_MS, and a last thorough look at the deadline.
 */
export async function waitForNode(lookups: NodeLookups, wait: RegistrationWait, clock: Clock): Promise<RegistrationResult> {
  const start = clock.now();
  let lastThorough = start;
  let lastEndedCheck = start;
  let looks = 1;
  let node = await lookups.thorough();
  let delay = Math.min(FIRST_DELAY_MS, wait.pollMaxMs);
  while (node === undefined) {
    const remaining = wait.deadline - clock.now();
    if (remaining <= 0) break;
    await clock.sleep(Math.min(delay, remaining));
    delay = Math.min(delay * 2, wait.pollMaxMs);
    const now = clock.now();
    looks += 1;
    if (lookups.ended && now < wait.deadline && now - lastEndedCheck >= ENDED_CHECK_INTERVAL_MS) {
      lastEndedCheck = now;
      if (await lookups.ended()) break;
    }
    if (now >= wait.deadline || now - lastThorough >= THOROUGH_LOOK_INTERVAL_MS) {
      lastThorough = now;
      node = await lookups.thorough();
    } else {
      node = await lookups.byName();
    }
  }
  return { node, waitedMs: clock.now() - start, looks };
}
