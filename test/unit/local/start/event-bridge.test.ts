import { describe, expect, it } from 'vitest';
import { parseLabelerEvent } from '../../../../lambdas/labeler/instance-events';
import { matchesInstanceRunningRule } from '../../../../local/start/ec2-state-events';
import { ec2StateChangeEvent, LocalEventBridge, scheduledEvent } from '../../../../local/start/event-bridge';

describe('EventBridge-shaped events', () => {
  const now = new Date('2026-11-30T10:11:12.345Z');

  it('an EC2 running state-change matches the labeler rule and is what the labeler parses as instanceRunning', () => {
    const event = ec2StateChangeEvent('i-0123456789abcdef0', 'running', 'us-east-1', now);
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'EC2 Instance State-change Notification',
      source: 'aws.ec2',
      account: '123456789012',
      time: '2026-11-30T10:11:12Z',
      resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-0123456789abcdef0'],
      detail: { 'instance-id': 'i-0123456789abcdef0', state: 'running' },
    });
    expect(matchesInstanceRunningRule(event)).toBe(true);
    expect(parseLabelerEvent(event)).toEqual({ kind: 'instanceRunning', instanceId: 'i-0123456789abcdef0', eventTime: Date.parse('2026-11-30T10:11:12Z') });
    expect(matchesInstanceRunningRule(ec2StateChangeEvent('i-0123456789abcdef0', 'stopping', 'us-east-1', now))).toBe(false);
  });

  it('a schedule delivers a Scheduled Event from aws.events', () => {
    const event = scheduledEvent('gpu-scheduling-labeler-schedule', 'us-east-1', now);
    expect(event.resources).toEqual(['arn:aws:events:us-east-1:123456789012:rule/gpu-scheduling-labeler-schedule']);
    expect(parseLabelerEvent(event)).toEqual({ kind: 'reconcile' });
    expect(matchesInstanceRunningRule(event)).toBe(false);
  });
});

describe('LocalEventBridge.stop', () => {
  it('does not wait past its grace for an invocation still running (a labeler waiting for a node that never joins)', async () => {
    const delivered: unknown[] = [];
    const bridge = new LocalEventBridge((delivery) => delivered.push(delivery));
    // A stand-in function whose invocation never ends: the state a real worker is in while it waits.
    const waiting = { functionName: 'labeler', invoke: () => new Promise<unknown>(() => undefined) };
    void bridge.deliver(waiting, ec2StateChangeEvent('i-0123456789abcdef0', 'running', 'us-east-1'), { retryAttempts: 2, baseDelayMs: 10 });
    await bridge.stop(20);
    expect(delivered).toEqual([]);
  });
});
