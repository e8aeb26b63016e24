import { describe, expect, it } from 'vitest';
import { parseLabelerEvent } from '../../../../lambdas/labeler/instance-events';

const running = {
  version: '0',
  id: '7bf73129-1428-4cd3-a780-95db273d1602',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '123456789012',
  time: '2026-11-30T09:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-0123456789abcdef0'],
  detail: { 'instance-id': 'i-0123456789abcdef0', state: 'running' },
};

describe('parseLabelerEvent', () => {
  it('reads a running state-change', () => {
    expect(parseLabelerEvent(running)).toEqual({
      kind: 'instanceRunning',
      instanceId: 'i-0123456789abcdef0',
      eventTime: Date.parse('2026-11-30T09:00:00Z'),
    });
  });
  it('tolerates a missing or bad time (no time-to-label then)', () => {
    expect(parseLabelerEvent({ ...running, time: 'yesterday' })).toMatchObject({ kind: 'instanceRunning', eventTime: undefined });
  });
  it('passes other states through as not running', () => {
    expect(parseLabelerEvent({ ...running, detail: { 'instance-id': 'i-0123456789abcdef0', state: 'stopped' } })).toEqual({
      kind: 'instanceNotRunning',
      instanceId: 'i-0123456789abcdef0',
      state: 'stopped',
    });
  });
  it('reads the scheduled reconcile', () => {
    expect(parseLabelerEvent({ source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} })).toEqual({ kind: 'reconcile' });
  });
  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'running'],
    ['a foreign source', { ...running, source: 'my.app' }],
    ['a spoofed detail-type', { ...running, 'detail-type': 'EC2 Spot Instance Interruption Warning' }],
    ['no detail', { ...running, detail: undefined }],
    ['no instance-id', { ...running, detail: { state: 'running' } }],
    ['a non-instance id', { ...running, detail: { 'instance-id': 'i-; rm -rf /', state: 'running' } }],
    ['no state', { ...running, detail: { 'instance-id': 'i-0123456789abcdef0' } }],
  ])('rejects %s with a reason', (_label, event) => {
    const parsed = parseLabelerEvent(event);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' && parsed.reason.length > 0).toBe(true);
  });
});
