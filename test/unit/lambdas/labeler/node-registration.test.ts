import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { Clock, NodeLookups } from '../../../../lambdas/labeler/node-registration';
import { ENDED_CHECK_INTERVAL_MS, THOROUGH_LOOK_INTERVAL_MS, waitForNode } from '../../../../lambdas/labeler/node-registration';

/** A clock that only moves when the wait sleeps, so the schedule of looks is exact. */
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

/** A node that registers at `registersAt` (clock ms); records when and how each look happened. */
function lookups(clock: Clock, registersAt: number): NodeLookups & { looks: { at: number; kind: 'byName' | 'thorough' }[] } {
  const node: V1Node = { metadata: { name: 'ip-10-0-0-1.ec2.internal' } };
  const looks: { at: number; kind: 'byName' | 'thorough' }[] = [];
  const look = (kind: 'byName' | 'thorough') => (): Promise<V1Node | undefined> => {
    looks.push({ at: clock.now(), kind });
    return Promise.resolve(clock.now() >= registersAt ? node : undefined);
  };
  return { looks, byName: look('byName'), thorough: look('thorough') };
}

describe('waitForNode', () => {
  it('returns at once, after one thorough look, when the node is already there', async () => {
    const clock = manualClock();
    const l = lookups(clock, 0);
    const result = await waitForNode(l, { deadline: 60_000, pollMaxMs: 5_000 }, clock);
    expect(result).toMatchObject({ node: { metadata: { name: 'ip-10-0-0-1.ec2.internal' } }, waitedMs: 0, looks: 1 });
    expect(clock.sleeps).toEqual([]);
  });

  it('backs off from 1 s to the cap, so a node is found within the cap of registering', async () => {
    const clock = manualClock();
    const registersAt = 37_300;
    const l = lookups(clock, registersAt);
    const result = await waitForNode(l, { deadline: 210_000, pollMaxMs: 5_000 }, clock);
    expect(clock.sleeps.slice(0, 5)).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
    expect(result.node).toBeDefined();
    expect(result.waitedMs).toBeGreaterThanOrEqual(registersAt);
    expect(result.waitedMs).toBeLessThanOrEqual(registersAt + 5_000);
  });

  it('lists the nodes at most once a minute while waiting; the looks in between are GETs by name', async () => {
    const clock = manualClock();
    const l = lookups(clock, Number.POSITIVE_INFINITY);
    await waitForNode(l, { deadline: 150_000, pollMaxMs: 5_000 }, clock);
    const thorough = l.looks.filter((look) => look.kind === 'thorough').map((look) => look.at);
    expect(thorough[0]).toBe(0);
    for (let i = 1; i < thorough.length - 1; i++) expect((thorough[i] ?? 0) - (thorough[i - 1] ?? 0)).toBeGreaterThanOrEqual(THOROUGH_LOOK_INTERVAL_MS);
    expect(thorough.length).toBeLessThanOrEqual(4);
    expect(l.looks.filter((look) => look.kind === 'byName').length).toBeGreaterThan(20);
  });

  it('gives up at the deadline after a last thorough look, never sleeping past it', async () => {
    const clock = manualClock();
    const l = lookups(clock, Number.POSITIVE_INFINITY);
    const result = await waitForNode(l, { deadline: 12_500, pollMaxMs: 5_000 }, clock);
    expect(result).toMatchObject({ node: undefined, waitedMs: 12_500 });
    expect(l.looks.at(-1)).toEqual({ at: 12_500, kind: 'thorough' });
    expect(result.looks).toBe(l.looks.length);
  });

  it('looks once when there is no time to wait', async () => {
    const clock = manualClock();
    const l = lookups(clock, Number.POSITIVE_INFINITY);
    expect(await waitForNode(l, { deadline: 0, pollMaxMs: 5_000 }, clock)).toEqual({ node: undefined, waitedMs: 0, looks: 1 });
  });

  it('stops waiting within ENDED_CHECK_INTERVAL_MS once the instance has ended (a Spot interruption before its node joined)', async () => {
    const clock = manualClock();
    const endsAt = 40_000;
    const checks: number[] = [];
    const l = { ...lookups(clock, Number.POSITIVE_INFINITY), ended: () => { checks.push(clock.now()); return Promise.resolve(clock.now() >= endsAt); } };
    const result = await waitForNode(l, { deadline: 210_000, pollMaxMs: 5_000 }, clock);
    expect(result.node).toBeUndefined();
    expect(result.waitedMs).toBeGreaterThanOrEqual(endsAt);
    expect(result.waitedMs).toBeLessThanOrEqual(endsAt + ENDED_CHECK_INTERVAL_MS + 5_000);
    // Asked no more often than the interval: one DescribeInstances per waiting invocation per interval.
    for (let i = 1; i < checks.length; i++) expect((checks[i] ?? 0) - (checks[i - 1] ?? 0)).toBeGreaterThanOrEqual(ENDED_CHECK_INTERVAL_MS);
  });

  it('waits to the deadline for an instance that keeps running', async () => {
    const clock = manualClock();
    const l = { ...lookups(clock, Number.POSITIVE_INFINITY), ended: () => Promise.resolve(false) };
    const result = await waitForNode(l, { deadline: 120_000, pollMaxMs: 5_000 }, clock);
    expect(result.waitedMs).toBeGreaterThanOrEqual(120_000);
  });
});
