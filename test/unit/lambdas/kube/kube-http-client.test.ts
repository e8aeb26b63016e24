/*
 * An in-process HTTPS server stands in for the API server here, only for what
 * the real kube-apiserver cannot be made to do on demand: hang, send an
 * oversized, non-JSON or non-list body, answer with a certificate from another
 * CA, report the exact query string of every page, answer JSON to a request
 * for protobuf, or send a corrupt protobuf list. Listing against the real
 * kube-apiserver is covered by test/e2e/extender-scheduling.test.ts, whose
 * extender lists nodes and pods through this client, and in protobuf by
 * test/e2e/kube-protobuf-lists.test.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isKubeNotFound } from '../../../../lambdas/kube/kube-errors';
import type { KubeConnection } from '../../../../lambdas/kube/kube-http-client';
import { createKubeHttpClient, KubeApiError } from '../../../../lambdas/kube/kube-http-client';
import { readPod } from '../../../../lambdas/kube/protobuf/core-v1-readers';
import { KUBE_PROTOBUF_CONTENT_TYPE } from '../../../../lambdas/kube/protobuf/kube-protobuf';
import { encodeList, encodeStatus, writePod } from './protobuf/kube-protobuf-encoder';
import type { SelfSignedCert, TlsServer } from './tls-fixture';
import { selfSignedCert, startTlsServer } from './tls-fixture';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let cert: SelfSignedCert;
let otherCert: SelfSignedCert;
let server: TlsServer;
let url: string;
let handle: Handler;
const seen: { url: string; authorization: string | undefined; accept: string | undefined }[] = [];

beforeAll(async () => {
  cert = selfSignedCert();
  otherCert = selfSignedCert('some-other-ca');
  server = await startTlsServer(cert, (req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization, accept: req.headers.accept });
    handle(req, res);
  });
  url = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  seen.length = 0;
});

function connection(overrides: Partial<KubeConnection> = {}): KubeConnection {
  return { server: url, caPem: cert.certPem, tokens: { token: () => Promise.resolve('t0') }, ...overrides };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('KubeHttpClient.listPages', () => {
  it('follows continue tokens, sends limit and selectors, and asks the token source for every page', async () => {
    const pages: Record<string, { items: unknown[]; next: string }> = {
      '': { items: [{ n: 1 }, { n: 2 }], next: 'tok/1+=' },
      'tok/1+=': { items: [{ n: 3 }], next: '' },
    };
    handle = (req, res) => {
      const query = new URL(req.url ?? '', 'https://x').searchParams;
      const page = pages[query.get('continue') ?? ''];
      if (!page) return json(res, 410, { kind: 'Status', reason: 'Expired', message: 'bad continue' });
      json(res, 200, { kind: 'PodList', metadata: { continue: page.next }, items: page.items });
    };
    let calls = 0;
    const client = createKubeHttpClient(connection({ tokens: { token: () => Promise.resolve(`t${++calls}`) } }));
    const got: unknown[][] = [];
    for await (const page of client.listPages('/api/v1/pods', { limit: 2, labelSelector: 'gpu=true', fieldSelector: 'spec.nodeName!=' })) {
      got.push([...page.items]);
    }
    expect(got).toEqual([[{ n: 1 }, { n: 2 }], [{ n: 3 }]]);
    const queries = seen.map((s) => Object.fromEntries(new URL(s.url, 'https://x').searchParams));
    expect(queries).toEqual([
      { limit: '2', labelSelector: 'gpu=true', fieldSelector: 'spec.nodeName!=' },
      { limit: '2', labelSelector: 'gpu=true', fieldSelector: 'spec.nodeName!=', continue: 'tok/1+=' },
    ]);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer t1', 'Bearer t2']);
    expect(seen.every((s) => s.url.startsWith('/api/v1/pods?'))).toBe(true);
  });

  it("asks for the next page as soon as the head of this one's body shows the token, before the rest arrives", async () => {
    let finishFirst: (() => void) | undefined;
    handle = (req, res) => {
      const query = new URL(req.url ?? '', 'https://x').searchParams;
      if (query.get('continue') === 't2') {
        json(res, 200, { kind: 'PodList', metadata: {}, items: [{ n: 2 }] });
        finishFirst?.();
        return;
      }
      // The first page's items are held back until the second page has been asked for: without the early token this never ends.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"t2"},"items":[');
      finishFirst = () => res.end('{"n":1}]}');
    };
    const got: unknown[] = [];
    for await (const page of createKubeHttpClient(connection()).listPages('/api/v1/pods', { limit: 1 })) got.push(...page.items);
    expect(got).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('takes the token from the whole body when the items come before the metadata', async () => {
    handle = (req, res) => {
      const next = new URL(req.url ?? '', 'https://x').searchParams.get('continue') === null ? 'p2' : '';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"items":[{"page":"${next === '' ? 2 : 1}"}],"metadata":{"continue":"${next}"}}`);
    };
    const got: unknown[] = [];
    for await (const page of createKubeHttpClient(connection()).listPages('/api/v1/pods')) got.push(...page.items);
    expect(got).toEqual([{ page: '1' }, { page: '2' }]);
    expect(seen.map((s) => new URL(s.url, 'https://x').searchParams.get('continue'))).toEqual([null, 'p2']);
  });

  it('keeps a path prefix of the server URL', async () => {
    handle = (_req, res) => json(res, 200, { items: [] });
    await createKubeHttpClient(connection({ server: `${url}/proxy/k8s/` })).list('/api/v1/nodes');
    expect(seen[0]?.url).toBe('/proxy/k8s/api/v1/nodes');
  });
});

function protobuf(res: ServerResponse, status: number, body: Uint8Array): void {
  res.writeHead(status, { 'content-type': KUBE_PROTOBUF_CONTENT_TYPE });
  res.end(body);
}

const podNamed = (name: string) => ({ metadata: { name, namespace: 'ml', uid: name }, spec: { nodeName: 'n1', containers: [{ name: 'main' }] }, status: { phase: 'Running' } });
const namesOf = (items: readonly unknown[]) => items.map((p) => (p as { metadata: { name: string } }).metadata.name);

describe('KubeHttpClient.listPages in protobuf', () => {
  it('asks for protobuf (JSON as the fallback) only when given an item reader, and follows the protobuf continue tokens', async () => {
    handle = (req, res) => {
      const next = new URL(req.url ?? '', 'https://x').searchParams.get('continue');
      if (!req.headers.accept?.startsWith(KUBE_PROTOBUF_CONTENT_TYPE)) return json(res, 200, { metadata: {}, items: [podNamed('json')] });
      protobuf(res, 200, next === null ? encodeList([podNamed('a'), podNamed('b')], writePod, { continueToken: 'c2', resourceVersion: '7' }) : encodeList([podNamed('c')], writePod));
    };
    const client = createKubeHttpClient(connection());
    const pages = [];
    for await (const page of client.listPages('/api/v1/pods', { limit: 2, protobufItem: readPod })) pages.push(page);
    expect(pages.map((p) => namesOf(p.items))).toEqual([['a', 'b'], ['c']]);
    expect(pages[0]?.resourceVersion).toBe('7');
    expect(seen.map((s) => s.accept)).toEqual([`${KUBE_PROTOBUF_CONTENT_TYPE}, application/json`, `${KUBE_PROTOBUF_CONTENT_TYPE}, application/json`]);
    expect(seen.map((s) => new URL(s.url, 'https://x').searchParams.get('continue'))).toEqual([null, 'c2']);

    seen.length = 0;
    expect(namesOf((await client.list('/api/v1/pods')).items)).toEqual(['json']);
    expect(seen[0]?.accept).toBe('application/json');
  });

  it('reads a JSON answer to a protobuf request as JSON (a proxy, or a type without protobuf)', async () => {
    handle = (_req, res) => json(res, 200, { metadata: { continue: '' }, items: [podNamed('from-json')] });
    expect(namesOf((await createKubeHttpClient(connection()).list('/api/v1/pods', { protobufItem: readPod })).items)).toEqual(['from-json']);
  });

  it("asks for the next page as soon as the protobuf head shows the token, before the rest arrives", async () => {
    let finishFirst: (() => void) | undefined;
    handle = (req, res) => {
      if (new URL(req.url ?? '', 'https://x').searchParams.get('continue') === 't2') {
        protobuf(res, 200, encodeList([podNamed('second')], writePod));
        finishFirst?.();
        return;
      }
      const body = encodeList([podNamed('first')], writePod, { continueToken: 't2' });
      res.writeHead(200, { 'content-type': KUBE_PROTOBUF_CONTENT_TYPE });
      res.write(body.subarray(0, 40));
      finishFirst = () => res.end(body.subarray(40));
    };
    const got: unknown[] = [];
    for await (const page of createKubeHttpClient(connection()).listPages('/api/v1/pods', { limit: 1, protobufItem: readPod })) got.push(...page.items);
    expect(namesOf(got)).toEqual(['first', 'second']);
  });

  it('refuses a corrupt protobuf list, and protobuf sent to a request for JSON, with errors that say so', async () => {
    handle = (_req, res) => protobuf(res, 200, encodeList([podNamed('a')], writePod).subarray(0, 30));
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods', { protobufItem: readPod })).rejects.toThrow(
      /^GET \/api\/v1\/pods: response is not a protobuf Kubernetes list \(.*is cut short/,
    );
    handle = (_req, res) => protobuf(res, 200, encodeList([podNamed('a')], writePod));
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods')).rejects.toThrow('GET /api/v1/pods: the API server answered protobuf to a request for JSON');
  });

  it('reads an error Status in protobuf into the same KubeApiError as in JSON', async () => {
    handle = (_req, res) => protobuf(res, 410, encodeStatus(410, 'Expired', 'The provided continue parameter is too old'));
    const error: unknown = await createKubeHttpClient(connection()).list('/api/v1/pods', { protobufItem: readPod }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 410, reason: 'Expired', message: 'GET /api/v1/pods: 410 Expired: The provided continue parameter is too old' });
    handle = (_req, res) => protobuf(res, 500, Uint8Array.of(1, 2, 3));
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods', { protobufItem: readPod })).rejects.toThrow('GET /api/v1/pods: 500: (3 bytes of protobuf that are not a Status)');
  });
});

describe('KubeHttpClient errors', () => {
  it("reports the status code and the API's Status reason and message", async () => {
    handle = (_req, res) =>
      json(res, 403, { kind: 'Status', status: 'Failure', reason: 'Forbidden', message: 'pods is forbidden: User "extender" cannot list resource "pods"', code: 403 });
    const error: unknown = await createKubeHttpClient(connection()).list('/api/v1/pods').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe(403);
    expect((error as KubeApiError).message).toBe('GET /api/v1/pods: 403 Forbidden: pods is forbidden: User "extender" cannot list resource "pods"');
  });

  it('is recognised by the shared isKubeNotFound helper', async () => {
    handle = (_req, res) => json(res, 404, { kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource' });
    const error: unknown = await createKubeHttpClient(connection()).list('/api/v1/nope').catch((e: unknown) => e);
    expect(isKubeNotFound(error)).toBe(true);
  });

  it('quotes the start of a body that is not a Status object', async () => {
    handle = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    };
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods')).rejects.toThrow('GET /api/v1/pods: 502: <html>bad gateway</html>');
  });

  it('rejects a 200 body that is not JSON or not a list', async () => {
    handle = (_req, res) => {
      res.writeHead(200);
      res.end('{"items": [');
    };
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods')).rejects.toThrow(/GET \/api\/v1\/pods: response is not JSON/);
    handle = (_req, res) => json(res, 200, { kind: 'Pod', metadata: {} });
    await expect(createKubeHttpClient(connection()).list('/api/v1/pods')).rejects.toThrow(/not a Kubernetes list/);
  });

  it('gives up after the timeout when the server does not answer', async () => {
    handle = () => undefined;
    await expect(createKubeHttpClient(connection(), { timeoutMs: 200 }).list('/api/v1/pods')).rejects.toThrow(/GET \/api\/v1\/pods.*timed out after 200 ms/);
  });

  it('gives up after the timeout when the body stalls halfway', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
    };
    await expect(createKubeHttpClient(connection(), { timeoutMs: 300 }).list('/api/v1/pods')).rejects.toThrow(/GET \/api\/v1\/pods.*timed out after 300 ms/);
  });

  it('refuses a body over the size limit, declared or streamed', async () => {
    const big = JSON.stringify({ items: Array.from({ length: 200 }, (_, n) => ({ n })) });
    handle = (_req, res) => {
      res.writeHead(200, { 'content-length': Buffer.byteLength(big) });
      res.end(big);
    };
    await expect(createKubeHttpClient(connection(), { maxResponseBytes: 1000 }).list('/api/v1/pods')).rejects.toThrow(/exceeds the 1000-byte limit/);
    handle = (_req, res) => {
      res.writeHead(200);
      res.write(big.slice(0, 800));
      setTimeout(() => res.end(big.slice(800)), 20);
    };
    await expect(createKubeHttpClient(connection(), { maxResponseBytes: 1000 }).list('/api/v1/pods')).rejects.toThrow(/exceeds the 1000-byte limit/);
  });

  it('does not trust a server whose certificate the pinned CA did not sign', async () => {
    handle = (_req, res) => json(res, 200, { items: [] });
    await expect(createKubeHttpClient(connection({ caPem: otherCert.certPem })).list('/api/v1/pods')).rejects.toThrow(/self[- ]signed|unable to verify/i);
    expect(seen).toEqual([]);
  });

  it('refuses a plain-http server rather than send the token in clear', () => {
    expect(() => createKubeHttpClient(connection({ server: 'http://127.0.0.1:8080' }))).toThrow(/must be an https URL/);
  });
});

describe('KubeHttpClient.watch', () => {
  const limits = { idleMs: 100, maxMs: 2000 };

  it('asks for a watch with bookmarks from the version, hands on each event and closes the stream once it is idle', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: { n: 1 } })}\n${JSON.stringify({ type: 'BOOKMARK', object: { n: 2 } })}\n`);
      // Left open, as the API server leaves a watch open.
    };
    const responses: unknown[] = [];
    const client = createKubeHttpClient(connection(), { onResponse: (r) => responses.push(r) });
    const events: unknown[] = [];
    const end = await client.watch('/api/v1/pods', { resourceVersion: '42', fieldSelector: 'spec.nodeName!=', timeoutSeconds: 3 }, (e) => {
      events.push(e);
    }, limits);
    expect(end).toBe('idle');
    expect(events).toEqual([
      { type: 'ADDED', object: { n: 1 } },
      { type: 'BOOKMARK', object: { n: 2 } },
    ]);
    const query = Object.fromEntries(new URL(seen[0]?.url ?? '', 'https://x').searchParams);
    expect(query).toEqual({ watch: '1', allowWatchBookmarks: 'true', resourceVersion: '42', fieldSelector: 'spec.nodeName!=', timeoutSeconds: '3' });
    const bytes = Buffer.byteLength(`${JSON.stringify({ type: 'ADDED', object: { n: 1 } })}\n${JSON.stringify({ type: 'BOOKMARK', object: { n: 2 } })}\n`);
    expect(responses).toEqual([{ request: `GET /api/v1/pods?${new URL(seen[0]?.url ?? '', 'https://x').searchParams.toString()}`, watch: true, status: 200, bytes }]);
  });

  it('rejects with the status code when the version is gone (410), so the caller can list afresh', async () => {
    handle = (_req, res) => json(res, 410, { kind: 'Status', reason: 'Expired', message: 'too old resource version: 1 (900)', code: 410 });
    const error: unknown = await createKubeHttpClient(connection())
      .watch('/api/v1/nodes', { resourceVersion: '1' }, () => undefined, limits)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe(410);
    expect((error as KubeApiError).message).toMatch(/watch=1.*: 410 Expired: too old resource version/);
  });

  it('gives up when the headers do not come within the timeout', async () => {
    handle = () => undefined;
    await expect(createKubeHttpClient(connection(), { timeoutMs: 200 }).watch('/api/v1/pods', { resourceVersion: '5' }, () => undefined, limits)).rejects.toThrow(
      /watch=1.*timed out after 200 ms/,
    );
  });
});
