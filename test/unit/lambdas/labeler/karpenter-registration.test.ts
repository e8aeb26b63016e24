import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KARPENTER_REGISTRATION_POLL_MS, waitForKarpenterRegistration } from '../../../../lambdas/labeler/karpenter-registration';
import type { Clock } from '../../../../lambdas/labeler/node-registration';
import { KARPENTER_UNREGISTERED_TAINT_KEY, STARTUP_TAINT } from '../../../../lambdas/labeler/startup-taint';

/** A clock that only moves when the wait sleeps. */
function manualClock(): Clock & { sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const unregistered: V1Taint = { key: KARPENTER_UNREGISTERED_TAINT_KEY, effect: 'NoExecute' };
const node = (taints: V1Taint[]): V1Node => ({ metadata: { name: 'ip-10-0-0-1.ec2.internal' }, spec: { taints } });

describe('waitForKarpenterRegistration', () => {
  it('returns a node Karpenter does not hold back at once, without a read', async () => {
    const clock = manualClock();
    const reads: number[] = [];
    const ready = node([{ ...STARTUP_TAINT }]);
    expect(await waitForKarpenterRegistration(() => (reads.push(clock.now()), Promise.resolve(ready)), ready, 10_000, clock)).toBe(ready);
    expect(reads).toEqual([]);
  });

  it('reads the node again every poll until Karpenter has lifted its taint, and returns that view', async () => {
    const clock = manualClock();
    const registered = node([{ ...STARTUP_TAINT }]);
    const read = () => Promise.resolve(clock.now() >= 600 ? registered : node([unregistered]));
    expect(await waitForKarpenterRegistration(read, node([unregistered]), 10_000, clock)).toBe(registered);
    expect(clock.sleeps).toEqual([KARPENTER_REGISTRATION_POLL_MS, KARPENTER_REGISTRATION_POLL_MS, KARPENTER_REGISTRATION_POLL_MS]);
  });

  it('gives up at the deadline with the node as it is, and says when it was deleted', async () => {
    const clock = manualClock();
    const waiting = node([unregistered]);
    expect(await waitForKarpenterRegistration(() => Promise.resolve(waiting), waiting, 600, clock)).toBe(waiting);
    expect(clock.sleeps).toEqual([250, 250, 100]);
    expect(await waitForKarpenterRegistration(() => Promise.resolve(undefined), waiting, 10_000, manualClock())).toBeUndefined();
  });
});
