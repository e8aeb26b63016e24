import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../../lambdas/extender/router';
import type { Plugin } from '../../../../lambdas/scheduling';
import { Profile } from '../../../../lambdas/scheduling';
import { EXTENDER_URL, schedulerFilter, schedulerPreempt, schedulerPrioritize } from './kube-scheduler-wire';
import type { ClusterState } from './router-harness';
import { failingCache, fixture, fixtureJson, harness, stateCache } from './router-harness';

describe('router: routes and methods', () => {
  it('GET /healthz answers ok', async () => {
    const { router } = harness();
    expect(await router({ method: 'GET', path: '/healthz', body: undefined })).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it.each([
    ['GET', '/filter'],
    ['PUT', '/prioritize'],
    ['DELETE', '/preempt'],
  ])('%s %s → 405 with Allow: POST', async (method, path) => {
    const { router, observer } = harness();
    const response = await router({ method, path, body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers).toEqual({ allow: 'POST' });
    expect(response.body).toEqual({ Error: expect.stringContaining(`method ${method} not allowed`) });
    expect(observer.failures[0]?.status).toBe(405);
  });

  it('POST /healthz → 405', async () => {
    const { router } = harness();
    expect((await router({ method: 'POST', path: '/healthz', body: '' })).status).toBe(405);
  });

  it.each(['/', '/bind', '/filter/extra', '/Filter', '/gpu/filter'])('unknown path %s → 404 JSON', async (path) => {
    const { router } = harness();
    const response = await router({ method: 'POST', path, body: '{}' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ Error: expect.stringContaining('no route for') });
  });

  it('tolerates a trailing slash and a query string', async () => {
    const { router } = harness();
    const response = await router({ method: 'POST', path: '/filter/?x=1', body: fixture('extender-args-nodes.json') });
    expect(response.status).toBe(200);
  });

  it('serves under a base path when configured', async () => {
    const { router } = harness({ basePath: '/gpu/' });
    expect((await router({ method: 'POST', path: '/gpu/filter', body: fixture('extender-args-nodes.json') })).status).toBe(200);
    expect((await router({ method: 'GET', path: '/gpu/healthz', body: undefined })).status).toBe(200);
    expect((await router({ method: 'POST', path: '/filter', body: '{}' })).status).toBe(404);
    expect((await router({ method: 'POST', path: '/gpufilter', body: '{}' })).status).toBe(404);
  });
});

describe('router: bad bodies', () => {
  it('malformed JSON → 400 with the parse error', async () => {
    const { post, observer } = harness();
    const response = await post('/filter', '{"Pod": {');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ Error: expect.stringMatching(/^malformed JSON: .*JSON/) });
    expect(observer.failures).toEqual([{ verb: 'filter', status: 400, message: expect.stringContaining('malformed JSON') }]);
  });

  it('empty body → 400', async () => {
    const { router } = harness();
    expect((await router({ method: 'POST', path: '/prioritize', body: undefined })).status).toBe(400);
  });

  it('body over 1 MB → 413, counted in bytes not characters', async () => {
    const { post } = harness();
    const big = JSON.stringify({ Pod: {}, NodeNames: [], pad: 'x'.repeat(MAX_BODY_BYTES) });
    expect((await post('/filter', big)).status).toBe(413);
    // 400,000 three-byte characters: under 1 M characters, over 1 MB.
    const wide = JSON.stringify({ Pod: {}, NodeNames: [], pad: '€'.repeat(400_000) });
    expect(wide.length).toBeLessThan(MAX_BODY_BYTES);
    expect((await post('/filter', wide)).status).toBe(413);
    // Full Nodes mode, which needs no cluster access: the one answer is a filter result.
    const justUnder = JSON.stringify({ Pod: {}, Nodes: { items: [] }, pad: 'x'.repeat(MAX_BODY_BYTES - 100) });
    expect((await post('/filter', justUnder)).status).toBe(200);
  });

  it('a 10,000-deep object inside a kept Node → 400, and no reply is left that cannot be serialised', async () => {
    const { post, observer } = harness();
    const deep = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const body = `{"Pod": {"metadata": {"name": "p"}}, "Nodes": {"items": [{"metadata": {"name": "n"}, "status": {"allocatable": {"nvidia.com/gpu": "1"}}, "x": ${deep}}]}}`;
    const response = await post('/filter', body);
    expect(response).toEqual({ status: 400, body: { Error: expect.stringMatching(/^JSON nests deeper than 100 levels \(at character \d+\)/) } });
    expect(() => JSON.stringify(response.body)).not.toThrow();
    expect(observer.failures).toEqual([{ verb: 'filter', status: 400, message: expect.stringContaining('nests deeper') }]);
  });

  it.each(['/filter', '/prioritize', '/preempt'])('%s: 500,000 nested arrays (deep enough to overflow a recursive parser) → 400', async (path) => {
    const { post } = harness();
    const body = `{"Pod": {}, "NodeNames": [], "NodeNameToMetaVictims": {}, "x": ${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    expect((await post(path, body)).status).toBe(400);
  });

  it('nesting up to the limit is accepted, brackets inside strings do not count', async () => {
    const { post } = harness();
    // Pod and Nodes.items[0] are levels 2 and 4; the node's extra field takes the rest.
    const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    const node = (extra: string) => `{"metadata": {"name": "n", "labels": {"x": "{{{{[[[[\\\\\\"[[[[\\\\"}}, "x": ${extra}}`;
    const at = (levels: number) => post('/filter', `{"Pod": {"metadata": {"name": "p"}}, "Nodes": {"items": [${node(nested(levels))}]}}`);
    expect((await at(100 - 4)).status).toBe(200);
    expect((await at(100 - 3)).status).toBe(400);
  });

  it.each([
    ['{"Pod": {}, "NodeNames": 5}', 'NodeNames must be an array of strings'],
    ['{"Pod": {}, "NodeNames": [{"name": "a"}]}', 'NodeNames must be an array of strings; [0] is an object'],
    ['{"Pod": {}, "NodeNames": ["a", null]}', 'NodeNames must be an array of strings; [1] is null'],
    ['{"Pod": [], "NodeNames": []}', 'ExtenderArgs.Pod is missing or not an object'],
    ['{"Pod": "p", "NodeNames": []}', 'ExtenderArgs.Pod is missing or not an object'],
    ['{"Pod": {}, "Nodes": {"items": 5}}', 'Nodes.items must be an array'],
    ['{"Pod": {}, "Nodes": "n"}', 'Nodes must be a NodeList object'],
    [JSON.stringify({ Pod: {}, NodeNames: Array.from({ length: 10_001 }, (_, i) => `n${i}`) }), 'ExtenderArgs.NodeNames has 10001 entries; the extender takes at most 10000'],
    [JSON.stringify({ Pod: {}, Nodes: { items: Array.from({ length: 10_001 }, () => ({})) } }), 'ExtenderArgs.Nodes.items has 10001 entries'],
  ])('filter and prioritize %s → 400 (%s)', async (body, message) => {
    const { post } = harness();
    for (const path of ['/filter', '/prioritize']) {
      const response = await post(path, body);
      expect(response).toEqual({ status: 400, body: { Error: expect.stringContaining(message) } });
    }
  });

  it('preempt with more candidates than the limit → 400', async () => {
    const { post } = harness();
    const victims = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`n${i}`, null]));
    const response = await post('/preempt', { Pod: {}, NodeNameToMetaVictims: victims });
    expect(response).toEqual({ status: 400, body: { Error: expect.stringContaining('NodeNameToMetaVictims has 10001 entries') } });
  });

  it('a name sent twice is answered twice, like any other name (kube-scheduler never repeats one)', async () => {
    const { post } = harness({ cache: stateCache(fixtureJson<ClusterState>('cluster-state.json')) });
    const response = await post('/prioritize', { Pod: {}, NodeNames: ['ip-10-0-2-20.ec2.internal', 'gone', 'ip-10-0-2-20.ec2.internal'] });
    expect((response.body as { Host: string }[]).map((h) => h.Host)).toEqual(['ip-10-0-2-20.ec2.internal', 'gone', 'ip-10-0-2-20.ec2.internal']);
  });

  it.each([
    ['null', 'must be a JSON object'],
    ['[]', 'must be a JSON object'],
    ['"text"', 'must be a JSON object'],
    ['{}', 'ExtenderArgs.Pod is missing'],
    ['{"Pod": 5, "NodeNames": []}', 'ExtenderArgs.Pod is missing or not an object'],
    ['{"Pod": {}}', 'neither Nodes nor NodeNames'],
    ['{"Pod": {}, "Nodes": null, "NodeNames": null}', 'neither Nodes nor NodeNames'],
    ['{"Pod": {}, "Nodes": []}', 'Nodes must be a NodeList object'],
    ['{"Pod": {}, "Nodes": {"items": {}}}', 'Nodes.items must be an array'],
    ['{"Pod": {}, "NodeNames": "a"}', 'NodeNames must be an array of strings'],
    ['{"Pod": {}, "NodeNames": ["a", 1]}', 'NodeNames must be an array of strings'],
  ])('filter %s → 400 (%s)', async (body, message) => {
    const { post } = harness();
    const response = await post('/filter', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ Error: expect.stringContaining(message) });
  });

  it.each([
    ['{"Pod": {}, "NodeNameToMetaVictims": []}', 'must be an object keyed by node name'],
    ['{"Pod": [], "NodeNameToMetaVictims": {}}', 'ExtenderPreemptionArgs.Pod is missing or not an object'],
  ])('preempt %s → 400 (%s)', async (body, message) => {
    const { post } = harness();
    const response = await post('/preempt', body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ Error: expect.stringContaining(message) });
  });

  // The messages are in wire-args.test.ts; here: one bad candidate does not fail the others.
  it.each(['{"n": 3}', '{"n": {"Pods": {}}}', '{"n": {"Pods": [{}]}}', '{"n": {"Pods": [{"metadata": {}}]}}', '{"n": {"NumPDBViolations": 1.5}}', '{"n": {"NumPDBViolations": -1}}'])(
    'preempt: the bad candidate %s is left out, the others answered',
    async (entry) => {
      const { post, observer } = harness();
      const response = await post('/preempt', `{"Pod": {}, "NodeNameToMetaVictims": {"ok": {"Pods": [{"UID": "u"}]}, ${entry.slice(1)}}`);
      expect(response).toEqual({ status: 200, body: { NodeNameToMetaVictims: { ok: { Pods: [{ UID: 'u' }], NumPDBViolations: 0 } } } });
      expect(observer.warnings).toContain('preempt: candidates with invalid victims left out');
      expect(observer.decisions[0]?.summary).toMatchObject({ candidates: 2, kept: 1 });
    },
  );

  it('unknown fields are ignored and field names match case-insensitively, as Go does', async () => {
    const { post } = harness();
    const args = fixtureJson<Record<string, unknown>>('extender-args-nodes.json');
    const response = await post('/filter', { pod: args.Pod, nodes: args.Nodes, Extra: { anything: true } });
    expect(response.status).toBe(200);
    expect((response.body as { Nodes: { items: unknown[] } }).Nodes.items).toHaveLength(2);
  });

  it('a pod with an invalid annotation fails on every node, naming the annotation and value', async () => {
    const { post } = harness();
    const args = fixtureJson<{ Pod: { metadata: { annotations: Record<string, string> } } }>('extender-args-nodes.json');
    args.Pod.metadata.annotations['gpu.nvidia.com/memory'] = 'abc';
    const response = await post('/filter', args);
    expect(response.status).toBe(200);
    const body = response.body as { Nodes: { items: unknown[] }; FailedAndUnresolvableNodes: Record<string, string> };
    expect(body.Nodes.items).toEqual([]);
    expect(Object.values(body.FailedAndUnresolvableNodes)).toEqual(
      Array(4).fill('Invalid pod: annotation gpu.nvidia.com/memory="abc" is not MiB or a quantity such as 40Gi'),
    );
  });

  it('nodes without a name are dropped, never returned', async () => {
    const { post } = harness();
    const response = await post('/filter', { Pod: { metadata: { name: 'p' } }, Nodes: { items: [{ metadata: {} }, 7, null, { metadata: { name: 'ok' } }] } });
    expect(response.body).toMatchObject({ Nodes: { items: [{ metadata: { name: 'ok' } }] } });
  });
});

describe('router: cluster cache failures', () => {
  it('filter (NodeNames), prioritize and preempt all answer 503 with the reason in Error', async () => {
    const { wire, observer } = harness({ cache: failingCache('apiserver timeout') });
    const names = fixtureJson<{ NodeNames: string[] }>('extender-args-node-names.json').NodeNames;
    const filter = await wire('/filter', fixture('extender-args-node-names.json'));
    const prioritize = await wire('/prioritize', fixture('extender-args-node-names.json'));
    const preempt = await wire('/preempt', fixture('extender-preemption-args-meta.json'));
    for (const reply of [filter, prioritize, preempt]) {
      expect(reply.status).toBe(503);
      expect(JSON.parse(reply.text)).toEqual({ Error: 'cluster cache unavailable: apiserver timeout' });
    }
    // What kube-scheduler makes of it: the status, not the body (extender.go send).
    expect(schedulerFilter(filter, names)).toEqual({ ok: false, error: `failed filter with extender at URL ${EXTENDER_URL}/filter, code 503` });
    expect(schedulerPrioritize(prioritize)).toEqual({ ok: false, error: `failed prioritize with extender at URL ${EXTENDER_URL}/prioritize, code 503` });
    expect(schedulerPreempt(preempt)).toEqual({ ok: false, error: `failed preempt with extender at URL ${EXTENDER_URL}/preempt, code 503` });
    expect(observer.failures).toEqual(['filter', 'prioritize', 'preempt'].map((verb) => ({ verb, status: 503, message: 'cluster cache unavailable: apiserver timeout' })));
  });

  it('filter (full Nodes) degrades to the request nodes and warns', async () => {
    const { post, observer } = harness({ cache: failingCache('apiserver timeout') });
    const response = await post('/filter', fixture('extender-args-nodes.json'));
    expect(response.status).toBe(200);
    expect((response.body as { Nodes: { items: unknown[] } }).Nodes.items).toHaveLength(2);
    expect(observer.warnings).toEqual(['cluster cache unavailable; deciding from the request nodes alone']);
  });

  it('a cache that throws synchronously is still a cache failure', async () => {
    const throwing = {
      snapshot: () => {
        throw new Error('boom');
      },
    };
    const { post } = harness({ cache: throwing });
    expect(await post('/preempt', fixture('extender-preemption-args-meta.json'))).toEqual({ status: 503, body: { Error: 'cluster cache unavailable: boom' } });
  });

  it('an exception inside a plugin becomes 500 JSON, not a crash', async () => {
    const broken: Plugin = {
      name: 'Broken',
      filter: () => {
        throw new Error('plugin bug');
      },
    };
    const { post, observer } = harness({ profile: new Profile({ name: 'broken', filters: [broken], scorers: [] }) });
    const response = await post('/filter', fixture('extender-args-nodes.json'));
    expect(response).toEqual({ status: 500, body: { Error: 'internal error: plugin bug' } });
    expect(observer.failures).toEqual([{ verb: 'filter', status: 500, message: 'internal error: plugin bug' }]);
  });
});
