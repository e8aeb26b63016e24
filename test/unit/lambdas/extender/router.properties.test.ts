import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFilterResult, decodeHostPriorityList, decodePreemptionResult, schedulerFilter, schedulerPrioritize, wireReply } from './kube-scheduler-wire';
import type { ClusterState } from './router-harness';
import { harness, stateCache } from './router-harness';

const MODELS = ['A100', 'H100', 'T4', 'L4', 'A10G', 'NVIDIA-A100-SXM4-40GB', ''];
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);

const node = fc.record({
  name,
  gpus: fc.integer({ min: 0, max: 16 }),
  model: fc.constantFrom(...MODELS),
  memory: fc.oneof(fc.constantFrom('16384', '40960', '81920', 'junk'), fc.integer({ min: -5, max: 200000 }).map(String)),
  zone: fc.constantFrom('us-east-1a', 'us-east-1b', undefined),
  utilization: fc.option(fc.oneof(fc.integer({ min: -10, max: 120 }).map(String), fc.constant('busy')), { nil: undefined }),
});
type NodeShape = { name: string; gpus: number; model: string; memory: string; zone: string | undefined; utilization: string | undefined };

function nodeJson(n: NodeShape) {
  return {
    metadata: {
      name: n.name,
      labels: {
        ...(n.model === '' ? {} : { 'gpu.nvidia.com/model': n.model }),
        'gpu.nvidia.com/memory': n.memory,
        ...(n.zone === undefined ? {} : { 'topology.kubernetes.io/zone': n.zone }),
      },
      ...(n.utilization === undefined ? {} : { annotations: { 'gpu.nvidia.com/utilization': n.utilization } }),
    },
    status: { allocatable: { 'nvidia.com/gpu': String(n.gpus), cpu: '32', memory: '256Gi' } },
  };
}

const pod = fc.record({
  gpus: fc.oneof(fc.integer({ min: 0, max: 9 }).map(String), fc.constantFrom('0.5', 'x', '-1')),
  model: fc.option(fc.constantFrom('A100', 'a100|h100', 'T4,L4', '|', 'b@d'), { nil: undefined }),
  memory: fc.option(fc.oneof(fc.constantFrom('40Gi', '40960', 'abc', '-1', '1e3', '7Ti'), fc.string()), { nil: undefined }),
  peers: fc.option(fc.oneof(fc.constantFrom('app=trainer', 'app in (a,b)', 'bad key=x', ''), fc.string()), { nil: undefined }),
});

let podSerial = 0;

type PodShape = { gpus: string; model: string | undefined; memory: string | undefined; peers: string | undefined };

function podJson(p: PodShape, nodeName?: string) {
  const annotations: Record<string, string> = {};
  if (p.model !== undefined) annotations['gpu.nvidia.com/model'] = p.model;
  if (p.memory !== undefined) annotations['gpu.nvidia.com/memory'] = p.memory;
  if (p.peers !== undefined) annotations['gpu.nvidia.com/peer-selector'] = p.peers;
  return {
    metadata: { name: 'p', namespace: 'ml', uid: `uid-${nodeName ?? 'pending'}-${podSerial++}`, labels: { app: 'trainer' }, annotations },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': p.gpus } } }] },
  };
}

const cluster = fc.record({
  nodes: fc.uniqueArray(node, { selector: (n) => n.name, maxLength: 12 }),
  bound: fc.array(fc.tuple(pod, fc.nat()), { maxLength: 12 }),
  extraNames: fc.uniqueArray(name, { maxLength: 3 }),
});

/** How kube-scheduler decodes each verb's 200 (it throws where Go's decoder would fail). */
const VERB_DECODERS: ReadonlyMap<string, (text: string) => unknown> = new Map<string, (text: string) => unknown>([
  ['/filter', decodeFilterResult],
  ['/prioritize', decodeHostPriorityList],
  ['/preempt', decodePreemptionResult],
]);

/** The router's route for a path: no query string, no trailing slash. */
const routeOf = (path: string): string => (path.split('?', 1)[0] ?? '').replace(/(.)\/+$/, '$1');

describe('extender properties', () => {
  it('filter never returns a node outside its input; every input node is kept or failed exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(cluster, pod, async (c, p) => {
        const nodes = c.nodes.map(nodeJson);
        const pods = c.bound.filter(() => nodes.length > 0).map(([bp, i]) => podJson(bp, c.nodes[i % c.nodes.length]?.name));
        const state: ClusterState = { nodes, pods };
        const names = [...c.nodes.map((n) => n.name), ...c.extraNames.filter((x) => !c.nodes.some((n) => n.name === x))];

        // As kube-scheduler reads the text: it refuses a kept name it did not send.
        const byNames = schedulerFilter(await harness({ cache: stateCache(state) }).wire('/filter', { Pod: podJson(p), Nodes: null, NodeNames: names }), names);
        if (!byNames.ok) throw new Error(byNames.error);
        const r = byNames.value;
        const accounted = [...(r.NodeNames ?? []), ...r.FailedNodes.keys(), ...r.FailedAndUnresolvableNodes.keys()].sort();
        expect(accounted).toEqual([...names].sort());

        const full = schedulerFilter(await harness().wire('/filter', { Pod: podJson(p), Nodes: { items: nodes }, NodeNames: null }), names);
        if (!full.ok) throw new Error(full.error);
        for (const item of full.value.Nodes?.items ?? []) expect(nodes).toContainEqual(item);
      }),
      { numRuns: 150 },
    );
  });

  it('prioritize scores are integers in 0..10, one per input name', async () => {
    await fc.assert(
      fc.asyncProperty(cluster, pod, async (c, p) => {
        const nodes = c.nodes.map(nodeJson);
        const pods = c.bound.filter(() => nodes.length > 0).map(([bp, i]) => podJson(bp, c.nodes[i % c.nodes.length]?.name));
        const names = [...c.nodes.map((n) => n.name), ...c.extraNames];
        // The decoder refuses a Score that is not an integer literal (Go's int64).
        const read = schedulerPrioritize(await harness({ cache: stateCache({ nodes, pods }) }).wire('/prioritize', { Pod: podJson(p), NodeNames: names }));
        if (!read.ok) throw new Error(read.error);
        const list = read.value;
        expect(list.map((h) => h.Host)).toEqual(names);
        for (const { Score } of list) {
          expect(Number.isInteger(Score)).toBe(true);
          expect(Score).toBeGreaterThanOrEqual(0);
          expect(Score).toBeLessThanOrEqual(10);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('no input crashes the router: every reply is a known status with a JSON body, a 200 the verb\'s result', async () => {
    const { router } = harness({ cache: stateCache({ nodes: [{ metadata: { name: 'n' } }], pods: [] }) });
    const body = fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ Pod: v, NodeNames: v, Nodes: v })), fc.jsonValue().map((v) => JSON.stringify({ Pod: {}, NodeNameToMetaVictims: v })), fc.anything().map((v) => {
      try {
        return JSON.stringify(v) ?? 'undefined';
      } catch {
        return '{}';
      }
    }));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'post'),
        fc.oneof(fc.constantFrom('/filter', '/prioritize', '/preempt', '/healthz', '/'), fc.string()),
        fc.option(body, { nil: undefined }),
        async (method, path, text) => {
          const reply = wireReply(await router({ method, path, body: text }));
          expect([200, 400, 404, 405, 413, 503]).toContain(reply.status);
          const body: unknown = JSON.parse(reply.text);
          const verb = reply.status === 200 && method.toUpperCase() === 'POST' ? VERB_DECODERS.get(routeOf(path)) : undefined;
          if (verb !== undefined) verb(reply.text);
          else if (reply.status !== 200) expect(body).toEqual({ Error: expect.any(String) });
        },
      ),
      { numRuns: 500 },
    );
  });
});
