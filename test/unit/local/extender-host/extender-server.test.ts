import type { Server } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtender } from '../../../../lambdas/extender/extender-handler';
import { startLocalServer } from '../../../../local/extender-host/extender-server';
import { fixture, RecordingObserver } from '../../lambdas/extender/router-harness';

let server: Server;
let port: number;
const observer = new RecordingObserver();

beforeAll(async () => {
  server = await startLocalServer(createExtender({ env: { POWERTOOLS_LOG_LEVEL: 'SILENT' }, observer }), 0);
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function call(method: string, path: string, body?: string | Buffer): Promise<{ status: number; headers: Record<string, unknown>; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('local HTTP server', () => {
  it('listens on loopback only', () => {
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
  });

  it('serves filter over real HTTP', async () => {
    const response = await call('POST', '/filter', fixture('extender-args-nodes.json'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.json).toMatchObject({ NodeNames: null, Error: '' });
    expect(observer.decisions.at(-1)?.verb).toBe('filter');
  });

  it('rejects a body over 1 MB with 413 without buffering it', async () => {
    const response = await call('POST', '/filter', Buffer.alloc(1024 * 1024 + 10, 0x20));
    expect(response.status).toBe(413);
    expect(response.json).toEqual({ Error: expect.stringContaining('over 1048576 bytes') });
  });

  it('every reply is JSON, errors included', async () => {
    expect(await call('GET', '/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(await call('GET', '/filter')).toMatchObject({ status: 405, headers: { allow: 'POST' } });
    expect(await call('POST', '/x', '{}')).toMatchObject({ status: 404, json: { Error: expect.any(String) } });
    expect(await call('POST', '/prioritize', 'not json')).toMatchObject({ status: 400, json: { Error: expect.stringContaining('malformed JSON') } });
  });
});
