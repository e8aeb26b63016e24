import type { ALBEvent, ALBResult } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../../local/common/wait';
import {
  ALB_LAMBDA_MAX_REQUEST_BODY_BYTES,
  ALB_LAMBDA_MAX_RESPONSE_BYTES,
  LOCAL_TARGET_GROUP_ARN,
  startAlbAdapter,
  type AlbAdapter,
  type AlbLambdaHandler,
} from '../../../../local/extender-host/alb-adapter';

let adapter: AlbAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
});

/** A handler that records the event it got and echoes it back as JSON. */
function recordingHandler(): { handler: AlbLambdaHandler; events: ALBEvent[] } {
  const events: ALBEvent[] = [];
  const handler: AlbLambdaHandler = async (event) => {
    events.push(event);
    return {
      statusCode: 200,
      statusDescription: '200 OK',
      headers: { 'Content-Type': 'application/json', 'X-Seen-Path': event.path },
      body: JSON.stringify({ echoed: event.body }),
      isBase64Encoded: false,
    };
  };
  return { handler, events };
}

describe('ALB adapter', () => {
  it('turns a JSON POST into the ALBEvent a Lambda target receives', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    const res = await fetch(`${adapter.url}/scheduler/filter?a=1&b=x%20y&a=2`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Custom-Header': 'Value' },
      body: JSON.stringify({ Pod: { metadata: { name: 'p' } } }),
    });

    expect(res.status).toBe(200);
    expect(res.headers.get('x-seen-path')).toBe('/scheduler/filter');
    expect(await res.json()).toEqual({ echoed: '{"Pod":{"metadata":{"name":"p"}}}' });
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.requestContext.elb.targetGroupArn).toBe(LOCAL_TARGET_GROUP_ARN);
    expect(event.httpMethod).toBe('POST');
    expect(event.path).toBe('/scheduler/filter');
    // Last value wins and values stay URL-encoded, as with the real ALB.
    expect(event.queryStringParameters).toEqual({ a: '2', b: 'x%20y' });
    expect(event.headers?.['content-type']).toBe('application/json');
    expect(event.headers?.['x-custom-header']).toBe('Value');
    expect(event.headers?.['x-forwarded-proto']).toBe('http');
    expect(Object.keys(event.headers ?? {}).every((k) => k === k.toLowerCase())).toBe(true);
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe('{"Pod":{"metadata":{"name":"p"}}}');
  });

  it('base64-encodes binary bodies', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    await fetch(`${adapter.url}/bin`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0, 255, 1]),
    });
    expect(events[0]?.isBase64Encoded).toBe(true);
    expect(Buffer.from(events[0]?.body ?? '', 'base64')).toEqual(Buffer.from([0, 255, 1]));
  });

  it('answers 413 without calling the handler when the body exceeds 1 MB', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    const res = await fetch(`${adapter.url}/filter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(ALB_LAMBDA_MAX_REQUEST_BODY_BYTES + 1),
    });
    expect(res.status).toBe(413);
    expect(events).toHaveLength(0);
  });

  it('passes a body of exactly 1 MB', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler: async (event, context, callback) => {
      await handler(event, context, callback);
      return { statusCode: 204 };
    } });
    const res = await fetch(`${adapter.url}/filter`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(ALB_LAMBDA_MAX_REQUEST_BODY_BYTES),
    });
    expect(res.status).toBe(204);
    expect(events[0]?.body).toHaveLength(ALB_LAMBDA_MAX_REQUEST_BODY_BYTES);
  });

  it('answers 502 when the response exceeds 1 MB', async () => {
    adapter = await startAlbAdapter({
      handler: async (): Promise<ALBResult> => ({ statusCode: 200, body: 'y'.repeat(ALB_LAMBDA_MAX_RESPONSE_BYTES) }),
    });
    const res = await fetch(`${adapter.url}/prioritize`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(502);
  });

  it('answers 502 when the handler throws or returns no statusCode', async () => {
    adapter = await startAlbAdapter({
      handler: async (event): Promise<ALBResult> => {
        if (event.path === '/throw') throw new Error('boom');
        return { body: 'no status' } as unknown as ALBResult;
      },
    });
    expect((await fetch(`${adapter.url}/throw`)).status).toBe(502);
    expect((await fetch(`${adapter.url}/shapeless`)).status).toBe(502);
  });

  it('supports callback-style handlers and maps status, headers and base64 bodies back to HTTP', async () => {
    adapter = await startAlbAdapter({
      handler: (_event, _context, callback) => {
        callback(null, {
          statusCode: 418,
          statusDescription: "418 I'm a teapot",
          multiValueHeaders: { 'set-cookie': ['a=1', 'b=2'] },
          body: Buffer.from('short and stout').toString('base64'),
          isBase64Encoded: true,
        });
      },
    });
    const res = await fetch(`${adapter.url}/tea`);
    expect(res.status).toBe(418);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.text()).toBe('short and stout');
  });

  it('answers 503 without calling the handler while a Lambda throttle is injected, and the handler again once cleared', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    adapter.injectFault('lambda-throttled');
    const throttled = await fetch(`${adapter.url}/filter`, { method: 'POST', body: '{}' });
    expect(throttled.status).toBe(503);
    expect(await throttled.text()).toContain('503 Service Temporarily Unavailable');
    expect(events).toHaveLength(0);
    expect(adapter.faultedRequests).toBe(1);
    adapter.injectFault(undefined);
    const served = await fetch(`${adapter.url}/filter`, { method: 'POST', body: '{}' });
    expect(served.status).toBe(200);
    expect(events).toHaveLength(1);
    expect(adapter.faultedRequests).toBe(1);
  });

  it('with cold starts injected, a request that finds no warm container waits for a new one, runs to the end after its caller gave up, and leaves it warm', async () => {
    const { handler, events } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    adapter.injectColdStarts(400);
    // The caller's timeout (kube-scheduler's httpTimeout) passes while the first container is in INIT.
    await expect(fetch(`${adapter.url}/filter`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(100) })).rejects.toThrow();
    // A retry while it is still busy starts a second cold container.
    const retry = fetch(`${adapter.url}/filter`, { method: 'POST', body: '{}' });
    expect((await retry).status).toBe(200);
    expect(adapter.coldStarts).toBe(2);
    await waitFor('the first cold invocation to run to the end', () => (adapter?.completedInvocations === 2 ? true : undefined), { timeoutMs: 5000 });
    expect(events).toHaveLength(2);
    // Two warm containers now: two calls at once start none.
    const both = await Promise.all([0, 1].map(() => fetch(`${adapter?.url}/filter`, { method: 'POST', body: '{}' })));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(adapter.coldStarts).toBe(2);
    adapter.injectColdStarts(0);
    expect((await fetch(`${adapter.url}/filter`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(adapter.coldStarts).toBe(2);
  });

  it('refuses connections while stopped and serves again on the same port after start', async () => {
    const { handler } = recordingHandler();
    adapter = await startAlbAdapter({ handler });
    const url = adapter.url;
    await adapter.stop();
    await expect(fetch(`${url}/filter`, { method: 'POST', body: '{}' })).rejects.toThrow();
    await adapter.start();
    expect(adapter.url).toBe(url);
    expect((await fetch(`${url}/filter`, { method: 'POST', body: '{}' })).status).toBe(200);
  });
});
