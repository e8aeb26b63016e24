import type { ALBEvent, ALBResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseLabelerEvent } from '../../../../lambdas/labeler/instance-events';
import { matchesInstanceRunningRule } from '../../../../local/start/ec2-state-events';
import { ec2StateChangeEvent, scheduledEvent } from '../../../../local/start/event-bridge';
import { ExtenderTap } from '../../../../local/start/extender-tap';
import { failedSchedulingLines } from '../../../../local/start/failed-scheduling';

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

describe('ExtenderTap', () => {
  const alb = (path: string, body: unknown): ALBEvent => ({
    requestContext: { elb: { targetGroupArn: 'arn' } },
    httpMethod: 'POST',
    path,
    queryStringParameters: {},
    headers: {},
    body: JSON.stringify(body),
    isBase64Encoded: false,
  });
  const reply = (body: unknown, statusCode = 200): ALBResult => ({ statusCode, body: JSON.stringify(body) });
  const args = { Pod: { metadata: { namespace: 'demo', name: 'job' } }, NodeNames: ['a', 'b', 'c'] };

  it('keeps the last filter verdict and prioritize scores per pod', () => {
    const tap = new ExtenderTap();
    tap.record(alb('/filter', args), reply({ NodeNames: ['a', 'b'], FailedNodes: {}, FailedAndUnresolvableNodes: { c: 'GPU model mismatch' } }));
    tap.record(alb('/prioritize', { ...args, NodeNames: ['a', 'b'] }), reply([{ Host: 'a', Score: 7 }, { Host: 'b', Score: 3 }]));
    expect(tap.view('demo', 'job')).toEqual({ kept: ['a', 'b'], rejected: { c: 'GPU model mismatch' }, scores: { a: 7, b: 3 } });
    expect(tap.view('demo', 'other')).toBeUndefined();
  });

  it('ignores errors and unreadable exchanges', () => {
    const tap = new ExtenderTap();
    tap.record(alb('/filter', args), reply({ Error: 'boom' }, 500));
    tap.record({ ...alb('/filter', args), body: '{not json' }, reply({ NodeNames: ['a'] }));
    expect(tap.view('demo', 'job')).toBeUndefined();
  });
});

describe('failedSchedulingLines', () => {
  it('puts each reason of the scheduler message on its own line', () => {
    const message =
      '0/12 nodes are available: 1 Not enough GPUs: requested 8, free 4, 3 GPU model mismatch: pod wants H100, node has A100. ' +
      'no new claims to deallocate, preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.';
    expect(failedSchedulingLines(message)).toEqual([
      '0/12 nodes are available:',
      '  1 × Not enough GPUs: requested 8, free 4',
      '  3 × GPU model mismatch: pod wants H100, node has A100',
      'preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.',
    ]);
  });

  it('leaves other messages alone', () => {
    expect(failedSchedulingLines('something else')).toEqual(['something else']);
  });
});
