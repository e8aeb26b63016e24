import type { ALBEvent, ALBResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ExtenderTap } from '../../../../local/start/extender-tap';

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
    expect(tap.view('demo', 'job')).toEqual({ kept: ['a', 'b'], rejected: { c: 'GPU model mismatch' }, scores: { a: 7, b: 3 }, tied: [] });
    // The extender's tie header: nodes that had equal best scores, the one it gave 10 first.
    tap.record(alb('/prioritize', { ...args, NodeNames: ['a', 'b'] }), { ...reply([{ Host: 'a', Score: 10 }, { Host: 'b', Score: 9 }]), headers: { 'x-gpu-extender-tie': 'a,b' } });
    expect(tap.view('demo', 'job')?.tied).toEqual(['a', 'b']);
    expect(tap.view('demo', 'other')).toBeUndefined();
  });

  it('ignores errors and unreadable exchanges', () => {
    const tap = new ExtenderTap();
    tap.record(alb('/filter', args), reply({ Error: 'boom' }, 500));
    tap.record({ ...alb('/filter', args), body: '{not json' }, reply({ NodeNames: ['a'] }));
    expect(tap.view('demo', 'job')).toBeUndefined();
  });
});
