import { describe, expect, it } from 'vitest';
import { TtlClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { createGpuScore, gpuFit, gpuPacking, networkLocality, Profile, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import type { FilterResultView, HostPriorityView, MetaVictimsView, SchedulerReading, WireReply } from './kube-scheduler-wire';
import { schedulerFilter, schedulerPreempt, schedulerPrioritize } from './kube-scheduler-wire';
import type { ClusterState, Harness } from './router-harness';
import { fixture, fixtureJson, harness, stateCache } from './router-harness';

const A100_1 = 'ip-10-0-1-10.ec2.internal';
const A100_2 = 'ip-10-0-2-20.ec2.internal';
const T4 = 'ip-10-0-1-30.ec2.internal';
const A10G = 'ip-10-0-2-40.ec2.internal';
const UNKNOWN = 'ip-10-0-3-50.ec2.internal';

const cluster = () => stateCache(fixtureJson<ClusterState>('cluster-state.json'));
const nodeItems = () => fixtureJson<{ Nodes: { items: { metadata: { name: string } }[] } }>('extender-args-nodes.json').Nodes.items;
const askedNames = () => fixtureJson<{ NodeNames: string[] }>('extender-args-node-names.json').NodeNames;

// Each verb's reply is checked as kube-scheduler reads it: the text of the
// ALB result, decoded into extender/v1's Go structs (kube-scheduler-wire.ts).
function decoded<T>(reading: SchedulerReading<T>): T {
  if (!reading.ok) throw new Error(`kube-scheduler would fail the call: ${reading.error}`);
  return reading.value;
}

/** The filter result kube-scheduler takes from a 200, with the maps as plain records for comparison. */
async function filterAsRead(h: Harness, body: unknown, asked: readonly string[]): Promise<Omit<FilterResultView, 'FailedNodes' | 'FailedAndUnresolvableNodes'> & { FailedNodes: Record<string, string>; FailedAndUnresolvableNodes: Record<string, string> }> {
  const reply = await h.wire('/filter', body);
  expect(reply.status).toBe(200);
  const result = decoded(schedulerFilter(reply, asked));
  return { ...result, FailedNodes: Object.fromEntries(result.FailedNodes), FailedAndUnresolvableNodes: Object.fromEntries(result.FailedAndUnresolvableNodes) };
}

async function prioritiesAsRead(h: Harness, body: unknown): Promise<{ reply: WireReply; list: HostPriorityView[] }> {
  const reply = await h.wire('/prioritize', body);
  expect(reply.status).toBe(200);
  return { reply, list: decoded(schedulerPrioritize(reply)) };
}

async function victimsAsRead(h: Harness, body: unknown): Promise<Record<string, MetaVictimsView>> {
  const reply = await h.wire('/preempt', body);
  expect(reply.status).toBe(200);
  return Object.fromEntries(decoded(schedulerPreempt(reply)));
}

describe('filter, full Nodes (nodeCacheCapable: false), no cluster access', () => {
  it('returns the passing Node objects unchanged and every failure with its reason', async () => {
    const h = harness();
    const { observer } = h;
    const items = nodeItems();
    expect(await filterAsRead(h, fixture('extender-args-nodes.json'), items.map((n) => n.metadata.name))).toEqual({
      Nodes: { items: [items[0], items[1]] },
      NodeNames: null,
      FailedNodes: {},
      FailedAndUnresolvableNodes: {
        [T4]: 'GPU model mismatch: pod wants A100, node has T4',
        [A10G]: 'GPU model mismatch: pod wants A100, node has A10G',
      },
      Error: '',
    });
    expect(observer.decisions).toEqual([
      {
        verb: 'filter',
        summary: {
          pod: 'ml/llm-ft-0',
          mode: 'Nodes',
          candidates: 4,
          kept: 2,
          failed: 2,
          reasons: { GpuModelMismatch: 2 },
          topReasons: ['GPU model mismatch: pod wants A100, node has T4 (1 node)', 'GPU model mismatch: pod wants A100, node has A10G (1 node)'],
        },
      },
    ]);
  });

  it('with cluster access, counts the GPUs bound pods hold on the request nodes', async () => {
    const result = await filterAsRead(harness({ cache: cluster() }), fixture('extender-args-nodes.json'), nodeItems().map((n) => n.metadata.name));
    expect(result).toMatchObject({
      Nodes: { items: [nodeItems()[1]] },
      FailedNodes: { [A100_1]: 'Not enough GPUs: requested 2, free 1' },
    });
  });
});

describe('filter, NodeNames (nodeCacheCapable: true)', () => {
  it('keeps a subset of the names, unknown names fail with a clear reason', async () => {
    const h = harness({ cache: cluster() });
    const { observer } = h;
    expect(await filterAsRead(h, fixture('extender-args-node-names.json'), askedNames())).toEqual({
      Nodes: null,
      NodeNames: [A100_2],
      FailedNodes: {
        [A100_1]: 'Not enough GPUs: requested 2, free 1',
      },
      // Evicting pods cannot make an unknown node acceptable, so preemption must not try.
      FailedAndUnresolvableNodes: {
        [UNKNOWN]: "Node is not in the extender's cluster cache: new node, or outside the cache's label selector",
        [T4]: 'GPU model mismatch: pod wants A100, node has T4',
        [A10G]: 'GPU model mismatch: pod wants A100, node has A10G',
      },
      Error: '',
    });
    expect(observer.decisions[0]?.summary.reasons).toEqual({ NodeNotFound: 1, InsufficientGpus: 1, GpuModelMismatch: 2 });
  });

  it('a reply whose reasons would pass the ALB response cap carries reason codes instead, and still names every node', async () => {
    // 5,000 T4 nodes the pod's model rules out and 5,000 names the cache has never seen (MAX_NODES_PER_REQUEST in all),
    // named as outside us-east-1: ~1.15 MB of messages.
    const t4 = Array.from({ length: 5_000 }, (_, i) => ({
      metadata: { name: `ip-10-1-${Math.floor(i / 250)}-${i % 250}.us-west-2.compute.internal`, labels: { 'gpu.nvidia.com/model': 'T4', 'gpu.nvidia.com/count': '1' } },
      status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '1' } },
    }));
    const unknown = Array.from({ length: 5_000 }, (_, i) => `ip-10-2-${Math.floor(i / 250)}-${i % 250}.us-west-2.compute.internal`);
    const h = harness({ cache: stateCache({ nodes: t4, pods: [] }) });
    const { observer } = h;
    const pod = { metadata: { name: 'p', namespace: 'ml', annotations: { 'gpu.nvidia.com/model': 'A100' } }, spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } };
    const asked = [...t4.map((n) => n.metadata.name), ...unknown];
    const reply = await h.wire('/filter', { Pod: pod, NodeNames: asked });
    expect(reply.status).toBe(200);
    expect(Buffer.byteLength(reply.text)).toBeLessThan(1024 * 1024);
    const result = decoded(schedulerFilter(reply, asked));
    expect(result.NodeNames).toEqual([]);
    expect([...result.FailedAndUnresolvableNodes.keys()].sort()).toEqual([...asked].sort());
    expect(new Set(result.FailedAndUnresolvableNodes.values())).toEqual(new Set(['GpuModelMismatch', 'NodeNotFound']));
    expect(observer.warnings).toEqual(['filter reply over budget: rejected nodes carry reason codes instead of messages']);
    // The decision log keeps the full messages, counted.
    expect(observer.decisions[0]?.summary).toMatchObject({ failed: 10_000, reasons: { GpuModelMismatch: 5_000, NodeNotFound: 5_000 } });
  });

  it('a node named "__proto__" is a FailedNodes key like any other, as kube-scheduler decodes it', async () => {
    const a100 = (name: string) => ({
      metadata: { name, labels: { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/count': '2' } },
      status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110', 'nvidia.com/gpu': '2' } },
    });
    const gpuPod = (name: string, gpus: string, nodeName?: string) => ({
      metadata: { name, namespace: 'ml', uid: `uid-${name}` },
      spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
    });
    // "__proto__" is full (both GPUs held), "constructor" is free, "toString" is unknown.
    const h = harness({ cache: stateCache({ nodes: [a100('__proto__'), a100('constructor')], pods: [gpuPod('holder', '2', '__proto__')] }) });
    const asked = ['__proto__', 'constructor', 'toString'];
    const reply = await h.wire('/filter', { Pod: gpuPod('p', '1'), NodeNames: asked });
    const result = decoded(schedulerFilter(reply, asked));
    expect(result.NodeNames).toEqual(['constructor']);
    expect([...result.FailedNodes]).toEqual([['__proto__', 'Not enough GPUs: requested 1, free 0']]);
    expect([...result.FailedAndUnresolvableNodes.keys()]).toEqual(['toString']);
  });

  it('a name the cached snapshot lacks (a node that just registered) refreshes the cache once before failing it', async () => {
    const state = fixtureJson<{ nodes: { metadata: { name: string; uid: string } }[]; pods: unknown[] }>('cluster-state.json');
    const newcomer = structuredClone(state.nodes.find((n) => n.metadata.name === A100_2));
    if (newcomer === undefined) throw new Error('fixture lacks the A100 node');
    newcomer.metadata.name = UNKNOWN;
    newcomer.metadata.uid = 'newcomer';
    let clock = 0;
    let loads = 0;
    const cache = new TtlClusterCache(
      {
        load: async () => {
          loads++;
          // The node registers between the first listing and the request.
          return snapshotFromKubernetes(loads === 1 ? state.nodes : [...state.nodes, newcomer], state.pods);
        },
      },
      { ttlMs: 60_000, now: () => clock },
    );
    await cache.snapshot();
    clock = 5_000;
    const h = harness({ cache });
    const { post } = h;
    const result = await filterAsRead(h, fixture('extender-args-node-names.json'), askedNames());
    expect(loads).toBe(2);
    expect(result.NodeNames).toEqual([A100_2, UNKNOWN]);
    expect(result.FailedAndUnresolvableNodes).not.toHaveProperty([UNKNOWN]);
    // Within UNKNOWN_NODE_REFRESH_MS a name that stays unknown does not list again.
    const gone = fixtureJson<{ NodeNames: string[] }>('extender-args-node-names.json');
    gone.NodeNames.push('ip-10-0-9-99.ec2.internal');
    clock = 5_500;
    await post('/filter', gone);
    expect(loads).toBe(2);
  });

  it('without cluster access answers 503 with the reason in Error (the scheduler fails the filter)', async () => {
    const { wire, observer } = harness();
    const reply = await wire('/filter', fixture('extender-args-node-names.json'));
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.text)).toEqual({ Error: expect.stringContaining('needs cluster access') });
    expect(schedulerFilter(reply, askedNames())).toEqual({ ok: false, error: 'failed filter with extender at URL http://extender.internal/filter, code 503' });
    expect(observer.failures).toEqual([{ verb: 'filter', status: 503, message: expect.stringContaining('KUBECONFIG or CLUSTER_NAME') }]);
  });
});

/** The seed's three scores at fixed weights, so expected numbers do not move when the default weights are tuned. */
const seedProfile = () =>
  new Profile({
    name: 'seed',
    filters: [gpuFit],
    scorers: [
      { plugin: createGpuScore(), weight: 2 },
      { plugin: gpuPacking, weight: 1 },
      { plugin: networkLocality, weight: 1 },
    ],
  });

describe('prioritize', () => {
  it('NodeNames: one entry per input name, in order, 0 where the pod does not fit', async () => {
    const { list } = await prioritiesAsRead(harness({ cache: cluster(), profile: seedProfile() }), fixture('extender-args-node-names.json'));
    // A100_2 is the only node it fits (GpuScore, packing and locality give 62.9): the best node gets 10.
    expect(list).toEqual([
      { Host: A100_1, Score: 0 },
      { Host: A100_2, Score: 10 },
      { Host: T4, Score: 0 },
      { Host: A10G, Score: 0 },
      { Host: UNKNOWN, Score: 0 },
    ]);
  });

  it('full Nodes without cluster access scores from allocatable and utilization', async () => {
    const { list } = await prioritiesAsRead(harness({ profile: seedProfile() }), fixture('extender-args-nodes.json'));
    // NetworkLocality skips a pod without peers, so its weight is not in the mean:
    // A100_1: (2*(0.7*100/7 + 0.3*80) + 25)/3 = 31; A100_2 unknown utilization: (2*25 + 25)/3 = 25.
    // Plain rounding would give both 3; 6 points behind the best, A100_2 loses 4 levels (toExtenderScores).
    expect(list).toEqual([
      { Host: A100_1, Score: 10 },
      { Host: A100_2, Score: 6 },
      { Host: T4, Score: 0 },
      { Host: A10G, Score: 0 },
    ]);
  });

  it('the decision log explains the ranking: best node and runner-up with each plugin\'s score and the level sent', async () => {
    const { post, observer } = harness({ profile: seedProfile() });
    await post('/prioritize', fixture('extender-args-nodes.json'));
    const ranking = observer.decisions[0]?.summary.ranking;
    // The same numbers as the scores above: A100_1 31 (level 10), A100_2 25 (level 6).
    expect(ranking?.best).toMatchObject({ node: A100_1, level: 10 });
    expect(ranking?.runnerUp).toMatchObject({ node: A100_2, level: 6 });
    expect(ranking?.tie).toBe(false);
    expect(Object.keys(ranking?.best.plugins ?? {}).sort()).toEqual(['GpuPacking', 'GpuScore']);
    expect(ranking?.best.total).toBeGreaterThan(ranking?.runnerUp?.total ?? 100);
  });

  it('equal best scores: one node gets 10 (stable node order), the tie header and the decision log name them', async () => {
    const twin = (name: string) => ({
      metadata: { name, labels: { 'gpu.nvidia.com/model': 'A10G', 'gpu.nvidia.com/count': '1' } },
      status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110', 'nvidia.com/gpu': '1' } },
    });
    const names = ['ip-10-0-9-1.ec2.internal', 'ip-10-0-9-2.ec2.internal'];
    const twins = harness({ cache: stateCache({ nodes: names.map(twin), pods: [] }) });
    const { observer } = twins;
    const pod = { metadata: { name: 'p', namespace: 'ml' }, spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '1' } } }] } };
    const { reply, list } = await prioritiesAsRead(twins, { Pod: pod, NodeNames: names });
    const top = list.find((h) => h.Score === 10)?.Host;
    expect(list.map((h) => h.Score).sort()).toEqual([10, 9]);
    expect(reply.headers['x-gpu-extender-tie']).toBe(`${top},${names.find((n) => n !== top)}`);
    // The same node wins whatever the order kube-scheduler lists them in.
    const again = (await prioritiesAsRead(twins, { Pod: pod, NodeNames: [...names].reverse() })).list;
    expect(again.find((h) => h.Score === 10)?.Host).toBe(top);
    expect(observer.decisions[0]?.summary.ranking).toMatchObject({ best: { node: top, level: 10 }, runnerUp: { level: 9 }, tie: true });

    // Many identical nodes: the header names the first eight and counts the rest, whatever the cluster size.
    const many = Array.from({ length: 500 }, (_, i) => `ip-10-1-${Math.floor(i / 250)}-${i % 250}.ec2.internal`);
    const big = harness({ cache: stateCache({ nodes: many.map(twin), pods: [] }) });
    const header = String((await big.wire('/prioritize', { Pod: pod, NodeNames: many })).headers['x-gpu-extender-tie']);
    expect(header.split(',')).toHaveLength(9);
    expect(header.endsWith(',+492')).toBe(true);
  });

  it('the default extender profile scores the only fitting node above 0 and the rest 0', async () => {
    const { list } = await prioritiesAsRead(harness({ cache: cluster() }), fixture('extender-args-node-names.json'));
    expect(list.map((h) => h.Host)).toEqual([A100_1, A100_2, T4, A10G, UNKNOWN]);
    expect(list[1]?.Score).toBeGreaterThan(0);
    expect(list.filter((h) => h.Host !== A100_2).map((h) => h.Score)).toEqual([0, 0, 0, 0]);
  });
});

describe('preempt', () => {
  it('MetaVictims: keeps candidates where the pod fits once the victims are gone', async () => {
    const h = harness({ cache: cluster() });
    const { observer } = h;
    expect(await victimsAsRead(h, fixture('extender-preemption-args-meta.json'))).toEqual({ [A100_1]: { Pods: [{ UID: '9a000000-0000-4000-8000-00000000000a' }], NumPDBViolations: 0 } });
    expect(observer.decisions[0]?.summary).toMatchObject({ mode: 'MetaVictims', candidates: 3, kept: 1, reasons: { GpuModelMismatch: 1, NodeNotFound: 1 } });
  });

  it('full Victims (nodeCacheCapable: false) are answered as MetaVictims', async () => {
    expect(await victimsAsRead(harness({ cache: cluster() }), fixture('extender-preemption-args-victims.json'))).toEqual({
      [A100_1]: { Pods: [{ UID: '9a000000-0000-4000-8000-00000000000a' }], NumPDBViolations: 0 },
      [A100_2]: { Pods: [{ UID: '9a000000-0000-4000-8000-00000000000c' }], NumPDBViolations: 1 },
    });
  });

  it('a victim set that does not free enough GPUs is dropped', async () => {
    const args = fixtureJson<{ NodeNameToMetaVictims: Record<string, { Pods: unknown[] }> }>('extender-preemption-args-meta.json');
    const entry = args.NodeNameToMetaVictims[A100_1];
    if (entry === undefined) throw new Error('fixture changed');
    entry.Pods = [];
    expect(await victimsAsRead(harness({ cache: cluster() }), args)).toEqual({});
  });

  it('a candidate with a NumPDBViolations kube-scheduler cannot decode is left out; the other candidates are still judged', async () => {
    const h = harness({ cache: cluster() });
    const { observer } = h;
    const args = fixtureJson<{ NodeNameToMetaVictims: Record<string, { Pods: unknown[]; NumPDBViolations: unknown }> }>('extender-preemption-args-meta.json');
    const victims = args.NodeNameToMetaVictims[A100_1];
    if (victims === undefined) throw new Error('fixture changed');
    args.NodeNameToMetaVictims[A100_2] = { Pods: [], NumPDBViolations: 1.5 };
    victims.NumPDBViolations = 3;
    expect(await victimsAsRead(h, args)).toEqual({ [A100_1]: { Pods: [{ UID: '9a000000-0000-4000-8000-00000000000a' }], NumPDBViolations: 3 } });
    expect(observer.warnings).toEqual(['preempt: candidates with invalid victims left out']);
    expect(observer.decisions[0]?.summary).toMatchObject({ candidates: 4, kept: 1 });
  });

  it('every NumPDBViolations in the reply is a safe integer ≥ 0, as the request sent it', async () => {
    const reply = await harness().wire('/preempt', '{"Pod": {}, "NodeNameToMetaVictims": {"a": {"NumPDBViolations": 9007199254740991}, "b": {"NumPDBViolations": -0}, "c": {"NumPDBViolations": 1e300}}}');
    // Integer literals, as Go's int64 needs (the decoder refuses 1e300 or -0.5); -0 went out as 0.
    expect(Object.fromEntries(decoded(schedulerPreempt(reply)))).toEqual({ a: { Pods: [], NumPDBViolations: 9007199254740991 }, b: { Pods: [], NumPDBViolations: 0 } });
    expect(reply.text).toContain('"NumPDBViolations":0}');
  });

  it('a candidate named "__proto__" is answered like any other name', async () => {
    const reply = await harness().wire('/preempt', '{"Pod": {}, "NodeNameToMetaVictims": {"__proto__": {"Pods": [{"UID": "u"}]}, "n": null}}');
    expect([...decoded(schedulerPreempt(reply))]).toEqual([
      ['__proto__', { Pods: [{ UID: 'u' }], NumPDBViolations: 0 }],
      ['n', { Pods: [], NumPDBViolations: 0 }],
    ]);
  });

  it('without cluster access passes candidates through and warns', async () => {
    const h = harness();
    const { observer } = h;
    expect(Object.keys(await victimsAsRead(h, fixture('extender-preemption-args-meta.json')))).toEqual([A100_1, T4, UNKNOWN]);
    expect(observer.warnings).toEqual(['preempt without cluster access: candidates passed through unchecked']);
  });
});
