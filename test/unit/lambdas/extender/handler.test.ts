import type { ALBEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { albHandlerOf } from '../../../../lambdas/extender/extender-handler';
import { invocationContext } from '../observability/lambda-invocation';
import { fixture } from './router-harness';

let invoke: ReturnType<typeof albHandlerOf>;
const handler = (event: ALBEvent) => invoke(event, invocationContext('gpu-extender', 'req-1'));

beforeAll(async () => {
  // The handler reads its configuration at import; no cluster access here.
  // The unit files of a worker share their modules: this is the one that
  // imports the handler module, so the environment below is the one it reads.
  vi.stubEnv('KUBECONFIG', undefined);
  vi.stubEnv('CLUSTER_NAME', undefined);
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
  ({ handler: invoke } = await import('../../../../lambdas/extender/handler'));
});

afterAll(() => {
  vi.unstubAllEnvs();
});

function albEvent(method: string, path: string, body: string | null, isBase64Encoded = false): ALBEvent {
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/extender/0123456789abcdef' } },
    httpMethod: method,
    path,
    queryStringParameters: {},
    headers: { 'content-type': 'application/json', host: 'internal-extender.elb.amazonaws.com' },
    body,
    isBase64Encoded,
  };
}

describe('ALB handler', () => {
  it('answers a filter with a JSON ALB result', async () => {
    const result = await handler(albEvent('POST', '/filter', fixture('extender-args-nodes.json')));
    expect(result.statusCode).toBe(200);
    expect(result.statusDescription).toBe('200 OK');
    expect(result.headers).toEqual({ 'content-type': 'application/json' });
    expect(result.isBase64Encoded).toBe(false);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ NodeNames: null, Error: '' });
  });

  it('decodes base64 bodies', async () => {
    const body = Buffer.from(fixture('extender-args-nodes.json')).toString('base64');
    const result = await handler(albEvent('POST', '/prioritize', body, true));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '')).toHaveLength(4);
  });

  it('maps router errors to ALB status lines and JSON bodies', async () => {
    const cases: [ALBEvent, number, string][] = [
      [albEvent('POST', '/filter', '{oops'), 400, '400 Bad Request'],
      [albEvent('GET', '/filter', null), 405, '405 Method Not Allowed'],
      [albEvent('POST', '/nope', '{}'), 404, '404 Not Found'],
      [albEvent('POST', '/filter', 'x'.repeat(1024 * 1024 + 1)), 413, '413 Payload Too Large'],
    ];
    for (const [event, status, description] of cases) {
      const result = await handler(event);
      expect(result.statusCode).toBe(status);
      expect(result.statusDescription).toBe(description);
      expect(result.headers?.['content-type']).toBe('application/json');
      expect(JSON.parse(result.body ?? '')).toHaveProperty('Error');
    }
  });

  it('never throws, even for events missing fields', async () => {
    const broken = { httpMethod: undefined, path: undefined, body: undefined } as unknown as ALBEvent;
    const result = await handler(broken);
    expect(result.statusCode).toBe(404);
    const healthz = await handler(albEvent('GET', '/healthz', null));
    expect(JSON.parse(healthz.body ?? '')).toEqual({ status: 'ok' });
  });
});
