import { request } from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ALBEvent } from 'aws-lambda';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../../../lambdas/certificates/x509';
import { startAlbAdapter, type AlbAdapter } from '../../../../local/extender-host/alb-adapter';
import { createLocalMutualTls } from '../../../../local/extender-host/extender-mtls';
import { waitFor } from '../../../../local/common/wait';

const dir = mkdtempSync(join(tmpdir(), 'alb-mtls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let adapter: AlbAdapter | undefined;
afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
});

function post(url: string, options: { cert?: string; key?: string; ca?: string }): Promise<string> {
  return new Promise((resolve) => {
    const req = request(`${url}/filter`, { method: 'POST', headers: { 'content-type': 'application/json' }, ...options }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    req.on('error', (error) => resolve(`refused: ${error.message}`));
    req.end('{}');
  });
}

describe('ALB adapter with mutual TLS (the deployed listener)', () => {
  it('passes a request with the client certificate, with the ALB\'s mTLS headers, and refuses one without before the handler', async () => {
    const mtls = await createLocalMutualTls(dir);
    const events: ALBEvent[] = [];
    adapter = await startAlbAdapter({ tls: mtls.adapter, handler: async (event) => (events.push(event), { statusCode: 200, body: 'ok' }) });
    expect(adapter.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = readFileSync(mtls.scheduler.caFile, 'utf8');
    const client = { cert: readFileSync(mtls.scheduler.certFile, 'utf8'), key: readFileSync(mtls.scheduler.keyFile, 'utf8'), ca };

    expect(await post(adapter.url, client)).toBe('200 ok');
    expect(events[0]?.headers?.['x-forwarded-proto']).toBe('https');
    expect(events[0]?.headers?.['x-amzn-mtls-clientcert-subject']).toBe('CN=gpu-scheduler');
    expect(events[0]?.headers?.['x-amzn-mtls-clientcert-issuer']).toBe('CN=gpu-scheduler CA');

    expect(await post(adapter.url, { ca })).toMatch(/^refused: /);
    const now = Date.now();
    const other = issueCertificate({ role: 'ca', commonName: 'other', notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
    const stranger = issueCertificate({ role: 'client', commonName: 'gpu-scheduler', notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) }, {
      commonName: 'other',
      privateKey: other.privateKey,
      publicKey: other.publicKey,
    });
    expect(await post(adapter.url, { cert: stranger.certificatePem, key: stranger.privateKeyPem, ca })).toMatch(/^refused: /);
    await waitFor('both refusals to be counted', () => ((adapter?.refusedTlsHandshakes ?? 0) >= 2 ? true : undefined), { timeoutMs: 5_000 });
    expect(events).toHaveLength(1);

    // stop()/start() keep the port, as without TLS.
    const url = adapter.url;
    await adapter.stop();
    expect(await post(url, client)).toMatch(/^refused: /);
    await adapter.start();
    expect(adapter.url).toBe(url);
    expect(await post(url, client)).toBe('200 ok');
  });
});

describe('ALB adapter with reserved concurrency', () => {
  it('throttles an invocation that finds the limit running (503, handler not run) and admits again once one ends', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    adapter = await startAlbAdapter({
      reservedConcurrency: 2,
      handler: async () => {
        started++;
        await gate;
        return { statusCode: 200, body: 'done' };
      },
    });
    const url = `${adapter.url}/filter`;
    const held = [fetch(url, { method: 'POST', body: '{}' }), fetch(url, { method: 'POST', body: '{}' })];
    await waitFor('two invocations to be running', () => (started === 2 ? true : undefined), { timeoutMs: 5_000 });
    const throttled = await fetch(url, { method: 'POST', body: '{}' });
    expect(throttled.status).toBe(503);
    expect(await throttled.text()).toContain('503 Service Temporarily Unavailable');
    expect(started).toBe(2);
    expect(adapter.throttledRequests).toBe(1);
    release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(adapter.throttledRequests).toBe(1);
  });

  it('holds a slot for minInvocationMs however fast the handler', async () => {
    let answered = 0;
    // Far longer than the test: the slot is still held when the second request comes, however slow the machine.
    adapter = await startAlbAdapter({ reservedConcurrency: 1, minInvocationMs: 600_000, handler: async () => (answered++, { statusCode: 200, body: 'fast' }) });
    const url = `${adapter.url}/filter`;
    const caller = new AbortController();
    const first = fetch(url, { method: 'POST', body: '{}', signal: caller.signal }).catch(() => undefined);
    await waitFor('the handler to have answered the first request', () => (answered === 1 ? true : undefined), { timeoutMs: 5_000 });
    // The handler is done, its invocation is not: the second is throttled.
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(503);
    expect(adapter.completedInvocations).toBe(0);
    expect(answered).toBe(1);
    // The first caller gives up; as on Lambda, its invocation still holds the slot until it ends.
    caller.abort();
    await first;
    expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(503);
  });
});
