/*
 * The counting proxy against an in-process HTTPS server standing in for the
 * API server: what is tested is the proxy's own counting, which needs exact,
 * known response sizes; the benchmark runs it in front of the real
 * kube-apiserver.
 */
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fault } from '../../../../local/proxies/fault-plan';
import { callKey, countsBetween, startCountingProxy, type CountingProxy } from '../../../../local/proxies/kube-api-proxy';
import { selfSignedCert, type SelfSignedCert } from '../../lambdas/kube/tls-fixture';

describe('callKey', () => {
  it('names list, watch and get calls by path', () => {
    expect(callKey('GET', '/api/v1/pods?limit=2000&fieldSelector=spec.nodeName%21%3D')).toBe('LIST /api/v1/pods');
    expect(callKey('GET', '/api/v1/pods?watch=true&resourceVersion=12')).toBe('WATCH /api/v1/pods');
    expect(callKey('GET', '/api/v1/namespaces/ml/pods')).toBe('LIST /api/v1/namespaces/ml/pods');
    expect(callKey('GET', '/api/v1/nodes/ip-10-0-0-1')).toBe('GET /api/v1/nodes/ip-10-0-0-1');
    expect(callKey('GET', '/apis/apps/v1/replicasets')).toBe('LIST /apis/apps/v1/replicasets');
    expect(callKey('POST', '/api/v1/namespaces/ml/pods')).toBe('POST /api/v1/namespaces/ml/pods');
  });
});

describe('countsBetween', () => {
  it('keeps only what grew', () => {
    const a = { calls: { 'LIST /api/v1/pods': 2, 'LIST /api/v1/nodes': 2 }, failed: { 'LIST /api/v1/pods 410': 1 }, openMs: { 'LIST /api/v1/pods': 20, 'LIST /api/v1/nodes': 4 }, responseBytes: 100, wireBytes: 150 };
    const b = {
      calls: { 'LIST /api/v1/pods': 5, 'LIST /api/v1/nodes': 2, 'WATCH /api/v1/pods': 1 },
      failed: { 'LIST /api/v1/pods 410': 1, 'WATCH /api/v1/pods 403': 1 },
      openMs: { 'LIST /api/v1/pods': 50, 'LIST /api/v1/nodes': 4, 'WATCH /api/v1/pods': 1000 },
      responseBytes: 400,
      wireBytes: 600,
    };
    expect(countsBetween(a, b)).toEqual({
      calls: { 'LIST /api/v1/pods': 3, 'WATCH /api/v1/pods': 1 },
      failed: { 'WATCH /api/v1/pods 403': 1 },
      openMs: { 'LIST /api/v1/pods': 30, 'WATCH /api/v1/pods': 1000 },
      responseBytes: 300,
      wireBytes: 450,
    });
  });
});

describe('startCountingProxy', () => {
  let cert: SelfSignedCert;
  let upstream: Server;
  let proxy: CountingProxy;
  const body = 'x'.repeat(100_000);
  let sawWatchHeaders: () => void = () => undefined;
  const clientSawWatchHeaders = new Promise<void>((resolve) => (sawWatchHeaders = resolve));

  beforeAll(async () => {
    cert = selfSignedCert('scale-proxy-test');
    upstream = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      if (req.url?.includes('watch=1')) {
        // A watch with nothing to report yet: headers now, events only once the client has seen them.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        void clientSawWatchHeaders.then(() => res.end('{"type":"BOOKMARK"}\n'));
        return;
      }
      if (req.url === '/api/v1/secrets') {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end('{"kind":"Status"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-path': req.url ?? '', 'x-auth': req.headers.authorization ?? '' });
      res.end(body);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await startCountingProxy({
      target: `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      caPem: cert.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
    });
  });

  afterAll(async () => {
    await proxy.stop();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const get = (path: string, onHeaders: () => void = () => undefined) =>
    new Promise<{ status: number; headers: Record<string, unknown>; bytes: number }>((resolve, reject) => {
      const req = request(`${proxy.url}${path}`, { ca: cert.certPem, headers: { authorization: 'Bearer t0' } }, (res) => {
        onHeaders();
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
      });
      req.on('error', reject);
      req.end();
    });

  it('forwards each request with its path and token, and counts calls, response bytes and wire bytes', async () => {
    const before = proxy.counts();
    const first = await get('/api/v1/pods?limit=10');
    await get('/api/v1/nodes');
    await get('/api/v1/pods?limit=10&continue=abc');
    await get('/api/v1/secrets');
    expect(first).toMatchObject({ status: 200, bytes: body.length, headers: { 'x-path': '/api/v1/pods?limit=10', 'x-auth': 'Bearer t0' } });
    const counts = countsBetween(before, proxy.counts());
    expect(counts.calls).toEqual({ 'LIST /api/v1/pods': 2, 'LIST /api/v1/nodes': 1, 'LIST /api/v1/secrets': 1 });
    expect(counts.failed).toEqual({ 'LIST /api/v1/secrets 403': 1 });
    expect(Object.keys(counts.openMs).sort()).toEqual(['LIST /api/v1/nodes', 'LIST /api/v1/pods', 'LIST /api/v1/secrets']);
    expect(counts.responseBytes).toBe(3 * body.length + '{"kind":"Status"}'.length);
    // Headers and TLS records come on top of the bodies.
    expect(counts.wireBytes).toBeGreaterThan(3 * body.length);
  });

  it('passes a watch\'s headers on before any event arrives', async () => {
    const before = proxy.counts();
    const watch = await get('/api/v1/nodes?watch=1&resourceVersion=5', sawWatchHeaders);
    expect(watch).toMatchObject({ status: 200, bytes: '{"type":"BOOKMARK"}\n'.length });
    expect(countsBetween(before, proxy.counts()).calls).toEqual({ 'WATCH /api/v1/nodes': 1 });
  });
});

describe('startCountingProxy with faults', () => {
  let cert: SelfSignedCert;
  let upstream: Server;
  let proxy: CountingProxy;
  let fault: Fault | undefined;
  const attempts: [string, number][] = [];
  const events = `${'{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n'.repeat(4)}`;

  beforeAll(async () => {
    cert = selfSignedCert('kube-api-proxy-faults');
    upstream = createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => {
      // Chunked, as a watch is: no length the client could check the body against.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(events);
      res.end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await startCountingProxy({
      target: `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      caPem: cert.certPem,
      certPem: cert.certPem,
      keyPem: cert.keyPem,
      faults: (call, attempt) => {
        attempts.push([call.key, attempt]);
        return fault;
      },
    });
  });

  afterAll(async () => {
    await proxy.stop();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const get = (path: string) =>
    new Promise<{ status: number; body: string; retryAfter?: string | undefined }>((resolve, reject) => {
      // A connection of its own: one a cut reset must not be handed to the next call.
      const req = request(`${proxy.url}${path}`, { ca: cert.certPem, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('close', () => resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers['retry-after'] }));
        res.on('error', () => undefined);
      });
      req.on('error', reject);
      req.end();
    });

  it('answers a status fault itself with a Kubernetes Status, counted as failed', async () => {
    fault = { kind: 'status', status: 410, reason: 'Expired', message: 'too old resource version: 1 (9)' };
    const before = proxy.counts();
    const answer = await get('/api/v1/pods?watch=1&resourceVersion=1');
    expect(answer.status).toBe(410);
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (9)' });
    expect(countsBetween(before, proxy.counts()).failed).toEqual({ 'WATCH /api/v1/pods 410': 1 });
  });

  it('forwards a delayed call only after the delay', async () => {
    fault = { kind: 'delay', ms: 300 };
    const started = performance.now();
    const answer = await get('/api/v1/nodes');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(answer).toMatchObject({ status: 200, body: events });
  });

  it('cuts a response mid-object: the client gets exactly the bytes before the cut', async () => {
    fault = { kind: 'cut', afterBytes: 70 };
    const answer = await get('/api/v1/pods?watch=1&resourceVersion=5');
    expect(answer.status).toBe(200);
    // Half of the second event, and nothing after it: the connection is gone.
    expect(answer.body).toBe(events.slice(0, 70));
  });

  it('throttles as API Priority and Fairness does: 429 TooManyRequests with Retry-After', async () => {
    fault = { kind: 'throttle' };
    const answer = await get('/api/v1/nodes');
    expect(answer.status).toBe(429);
    expect(answer.retryAfter).toBe('1');
    expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests' });
  });

  it('asks the plan with each call and which attempt of that call it is', async () => {
    fault = undefined;
    attempts.length = 0;
    await get('/api/v1/namespaces/attempts/pods');
    await get('/api/v1/namespaces/attempts/pods');
    await get('/api/v1/namespaces/attempts/pods/p');
    expect(attempts).toEqual([
      ['LIST /api/v1/namespaces/attempts/pods', 1],
      ['LIST /api/v1/namespaces/attempts/pods', 2],
      ['GET /api/v1/namespaces/attempts/pods/p', 1],
    ]);
  });
});
