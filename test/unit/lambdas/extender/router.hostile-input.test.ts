import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NO_CLUSTER_ACCESS } from '../../../../lambdas/extender/candidate-nodes';
import { toAlbResult } from '../../../../lambdas/extender/extender-handler';
import type { Router, RouterResponse } from '../../../../lambdas/extender/router';
import { MAX_EXTENDER_PRIORITY } from '../../../../lambdas/extender/wire-types';
import { harness, stateCache } from './router-harness';

// Hostile or absurd requests, shaped like ExtenderArgs / ExtenderPreemptionArgs
// with Node and Pod objects inside, through the router and the ALB adapter's
// serialisation. Whatever comes in, the reply must be a 2xx/4xx kube-scheduler
// can decode: JSON, scores whole 0..10, NumPDBViolations safe integers ≥ 0,
// and no node it did not ask about.

// Tokens JSON.stringify cannot produce (1e400, -0, 1E2, 30-digit integers) and
// nesting too deep for a recursive generator are spliced into the text through
// markers, which are strings until then.
const MARK = '\u0000';
const RAW_NUMBERS = ['1.5', '1e300', '1e400', '-1e400', '-1', '-0', '1E2', '2147483648', '9007199254740991', '9007199254740993', '123456789012345678901234567890', '0.0000001'];
const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((token) => `${MARK}NUM:${token}${MARK}`);
const deep = fc
  .record({ kind: fc.constantFrom('ARR', 'OBJ'), depth: fc.constantFrom(3, 60, 95, 101, 150, 5_000, 60_000) })
  .map(({ kind, depth }) => `${MARK}DEEP_${kind}:${depth}${MARK}`);

function expandMarkers(text: string): string {
  return text.replace(/"\\u0000(NUM|DEEP_ARR|DEEP_OBJ):([^"\\]*)\\u0000"/g, (_, kind: string, arg: string) => {
    if (kind === 'NUM') return arg;
    const depth = Number(arg);
    return kind === 'DEEP_ARR' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  });
}

const ABSURD_STRINGS = ['2147483648', '9007199254740991', '1e308', '1e400', '-1', '-0', '0.5', 'NaN', 'Infinity', '99999999999999999999', '8Gi', '1e2', ' 8 ', '0x10', '', '\ud800', 'A100|', '|'];
const absurdString = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ABSURD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(20_000), '€'.repeat(3_000)) },
);
const absurdNumber = fc.oneof(fc.constantFrom(1.5, 1e300, -1, 2 ** 31, 2 ** 53, 2 ** 64, -0, Number.MAX_VALUE, Number.MIN_VALUE), fc.double(), fc.integer(), rawNumber);
const scalar = fc.oneof(absurdString, absurdNumber, fc.boolean(), fc.constant(null));
/** Anything at all where a field is expected. */
const weird = fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
/** Rarer than `weird` (one deep value anywhere refuses the whole body), so most bodies get past the depth check. */
const weirdOrDeep = fc.oneof({ weight: 8, arbitrary: weird }, { weight: 1, arbitrary: deep });

const NODE_NAMES = ['a', 'b', 'ip-10-0-1-10.ec2.internal', 'gone', '__proto__', 'constructor', 'toString', '', 'A', 'ä', 'n'.repeat(300)];
const nodeName = fc.constantFrom(...NODE_NAMES);
const quantity = fc.oneof({ weight: 3, arbitrary: absurdString }, { weight: 3, arbitrary: fc.integer({ min: -2, max: 16 }).map(String) }, { weight: 1, arbitrary: weird });

const GPU_LABELS = [
  'gpu.nvidia.com/model',
  'gpu.nvidia.com/memory',
  'gpu.nvidia.com/count',
  'nvidia.com/gpu.count',
  'nvidia.com/gpu.memory',
  'nvidia.com/gpu.product',
  'nvidia.com/gpu.replicas',
  'nvidia.com/gpu.sharing-strategy',
  'nvidia.com/mig.strategy',
  'karpenter.k8s.aws/instance-gpu-count',
  'topology.kubernetes.io/zone',
];
const RESOURCES = ['nvidia.com/gpu', 'nvidia.com/gpu.shared', 'nvidia.com/mig-1g.10gb', 'cpu', 'memory', 'pods'];

const node = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        metadata: fc.record(
          {
            name: fc.oneof({ weight: 8, arbitrary: nodeName }, { weight: 1, arbitrary: weird }),
            labels: fc.oneof(fc.dictionary(fc.constantFrom(...GPU_LABELS), fc.oneof(absurdString, weird), { maxKeys: 4 }), weird),
            annotations: fc.dictionary(fc.constantFrom('gpu.nvidia.com/utilization'), fc.oneof(absurdString, weird), { maxKeys: 1 }),
          },
          { requiredKeys: ['name'] },
        ),
        status: fc.oneof(
          fc.record({ allocatable: fc.dictionary(fc.constantFrom(...RESOURCES), quantity, { maxKeys: 3 }), capacity: fc.dictionary(fc.constantFrom(...RESOURCES), quantity, { maxKeys: 2 }) }, { requiredKeys: [] }),
          weird,
        ),
        extra: weirdOrDeep,
      },
      { requiredKeys: ['metadata'] },
    ),
  },
  { weight: 1, arbitrary: weird },
);

const container = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      name: fc.constant('c'),
      resources: fc.record({ limits: fc.dictionary(fc.constantFrom(...RESOURCES), quantity, { maxKeys: 2 }), requests: fc.dictionary(fc.constantFrom(...RESOURCES), quantity, { maxKeys: 2 }) }, { requiredKeys: [] }),
    }),
  },
  { weight: 1, arbitrary: weird },
);
const pod = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        metadata: fc.record(
          {
            name: fc.oneof({ weight: 4, arbitrary: fc.constant('p') }, { weight: 1, arbitrary: weird }),
            namespace: fc.oneof({ weight: 4, arbitrary: fc.constant('ml') }, { weight: 1, arbitrary: weird }),
            uid: fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: weird }),
            labels: fc.oneof({ weight: 4, arbitrary: fc.constant({ app: 'trainer' }) }, { weight: 1, arbitrary: weird }),
            // Mostly readable, so that some pods fit somewhere and the kept-node paths run too.
            annotations: fc.dictionary(
              fc.constantFrom('gpu.nvidia.com/model', 'gpu.nvidia.com/memory', 'gpu.nvidia.com/peer-selector'),
              fc.oneof({ weight: 4, arbitrary: fc.constantFrom('A100', '40960', 'app=trainer', 'a100|t4') }, { weight: 2, arbitrary: absurdString }, { weight: 1, arbitrary: weird }),
              { maxKeys: 3 },
            ),
          },
          { requiredKeys: [] },
        ),
        spec: fc.oneof(
          {
            weight: 6,
            arbitrary: fc.record(
              {
                containers: fc.oneof({ weight: 6, arbitrary: fc.array(container, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: weird }),
                initContainers: fc.oneof(fc.array(container, { maxLength: 2 }), weird),
                nodeName: fc.oneof(nodeName, weird),
              },
              { requiredKeys: ['containers'] },
            ),
          },
          { weight: 1, arbitrary: weirdOrDeep },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: weird },
);

const absent = fc.constantFrom(undefined, null);
const unknownFields = fc.dictionary(fc.oneof(fc.constantFrom('Extra', 'pod', 'nodenames', 'NODES', 'nodeNameToMetaVictims'), fc.string({ maxLength: 6 })), weirdOrDeep, { maxKeys: 2 });

const extenderArgs = fc
  .record({
    Pod: pod,
    Nodes: fc.oneof(
      { weight: 4, arbitrary: absent },
      { weight: 4, arbitrary: fc.record({ items: fc.oneof({ weight: 8, arbitrary: fc.array(node, { maxLength: 8 }) }, { weight: 1, arbitrary: weird }) }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: weird },
    ),
    NodeNames: fc.oneof(
      { weight: 1, arbitrary: absent },
      { weight: 6, arbitrary: fc.array(fc.oneof({ weight: 20, arbitrary: nodeName }, { weight: 1, arbitrary: weird }), { maxLength: 12 }) },
      { weight: 1, arbitrary: weird },
    ),
    extra: unknownFields,
  })
  .map(({ extra, ...args }) => ({ ...extra, ...args }));

const victim = fc.oneof(
  fc.record({ UID: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('u-1', 'u-2') }, { weight: 1, arbitrary: weird }) }),
  fc.record({ metadata: fc.record({ uid: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('u-1', 'u-2') }, { weight: 1, arbitrary: weird }), name: fc.constant('v') }, { requiredKeys: [] }) }),
);
const victims = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        Pods: fc.oneof({ weight: 6, arbitrary: fc.array(fc.oneof({ weight: 8, arbitrary: victim }, { weight: 1, arbitrary: weird }), { maxLength: 4 }) }, { weight: 1, arbitrary: absent }, { weight: 1, arbitrary: weird }),
        NumPDBViolations: fc.oneof({ weight: 3, arbitrary: fc.nat(5) }, { weight: 3, arbitrary: absurdNumber }, { weight: 1, arbitrary: scalar }),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: weird },
);
const preemptionArgs = fc
  .record({
    Pod: pod,
    NodeNameToMetaVictims: fc.oneof({ weight: 2, arbitrary: absent }, { weight: 6, arbitrary: fc.dictionary(nodeName, victims, { maxKeys: 6 }) }, { weight: 1, arbitrary: weird }),
    NodeNameToVictims: fc.oneof({ weight: 6, arbitrary: absent }, { weight: 2, arbitrary: fc.dictionary(nodeName, victims, { maxKeys: 6 }) }, { weight: 1, arbitrary: weird }),
    extra: unknownFields,
  })
  .map(({ extra, ...args }) => ({ ...extra, ...args }));

/** Every string in a parsed request, without recursion (the request may be 100 levels deep). */
function stringsIn(value: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) stack.push(k, x);
  }
  return out;
}

/** The JSON text of every array element in a parsed request: what a full-Nodes reply may echo. */
function arrayElementsIn(value: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v as unknown[]) out.add(JSON.stringify(x));
      stack.push(...(v as unknown[]));
    } else if (typeof v === 'object' && v !== null) stack.push(...Object.values(v));
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function expectWellFormedReply(verb: string, text: string, response: RouterResponse): void {
  // The ALB adapter's serialisation is where a too-deep echo used to overflow.
  const alb = toAlbResult(response);
  expect(alb.statusCode).toBe(response.status);
  const reply: unknown = JSON.parse(alb.body ?? '');
  if (response.status !== 200) {
    expect(isObject(reply) && typeof reply.Error === 'string' && reply.Error !== '').toBe(true);
    return;
  }
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    throw new Error(`a 200 for a body that is not JSON: ${text.slice(0, 200)}`);
  }
  const asked = stringsIn(request);
  const isAsked = (name: unknown) => typeof name === 'string' && asked.has(name);

  if (verb === '/prioritize') {
    expect(Array.isArray(reply)).toBe(true);
    for (const entry of reply as unknown[]) {
      if (!isObject(entry)) throw new Error(`a HostPriority that is not an object: ${JSON.stringify(entry)}`);
      expect(isAsked(entry.Host)).toBe(true);
      expect(Number.isInteger(entry.Score) && (entry.Score as number) >= 0 && (entry.Score as number) <= MAX_EXTENDER_PRIORITY).toBe(true);
    }
  } else if (verb === '/filter') {
    if (!isObject(reply)) throw new Error('a filter result that is not an object');
    expect(typeof reply.Error).toBe('string');
    for (const map of [reply.FailedNodes, reply.FailedAndUnresolvableNodes]) {
      if (!isObject(map)) throw new Error('FailedNodes must be objects');
      for (const [name, message] of Object.entries(map)) {
        expect(isAsked(name)).toBe(true);
        expect(typeof message).toBe('string');
      }
    }
    if (reply.NodeNames !== null) {
      expect(Array.isArray(reply.NodeNames)).toBe(true);
      for (const name of reply.NodeNames as unknown[]) expect(isAsked(name)).toBe(true);
    }
    if (reply.Nodes !== null) {
      const items = isObject(reply.Nodes) ? reply.Nodes.items : undefined;
      if (!Array.isArray(items)) throw new Error('Nodes.items must be an array');
      const sent = arrayElementsIn(request);
      for (const item of items) expect(sent.has(JSON.stringify(item))).toBe(true);
    }
  } else {
    if (!isObject(reply) || !isObject(reply.NodeNameToMetaVictims)) throw new Error('a preemption result without NodeNameToMetaVictims');
    for (const [name, meta] of Object.entries(reply.NodeNameToMetaVictims)) {
      expect(isAsked(name)).toBe(true);
      if (!isObject(meta) || !Array.isArray(meta.Pods)) throw new Error(`MetaVictims for ${name} malformed`);
      expect(Number.isSafeInteger(meta.NumPDBViolations) && (meta.NumPDBViolations as number) >= 0).toBe(true);
      for (const p of meta.Pods as unknown[]) expect(isObject(p) && isAsked(p.UID)).toBe(true);
    }
  }
}

const OK_STATUSES = [200, 400, 404, 405, 413];

async function check(router: Router, verb: string, text: string, withCache: boolean): Promise<void> {
  const response = await router({ method: 'POST', path: verb, body: text });
  const error = isObject(response.body) ? response.body.Error : undefined;
  // Without cluster access a NodeNames filter or prioritize has nothing to judge: 503 is the configuration, not the input.
  const noAccess = !withCache && response.status === 503 && error === NO_CLUSTER_ACCESS;
  if (!OK_STATUSES.includes(response.status) && !noAccess) {
    throw new Error(`${verb} answered ${response.status} ${JSON.stringify(response.body).slice(0, 300)} to ${text.slice(0, 300)}`);
  }
  expectWellFormedReply(verb, text, response);
}

const cluster = {
  nodes: [
    { metadata: { name: 'a', labels: { 'gpu.nvidia.com/model': 'A100', 'gpu.nvidia.com/memory': '40960' } }, status: { allocatable: { 'nvidia.com/gpu': '8', cpu: '96', memory: '1Ti', pods: '110' } } },
    { metadata: { name: 'ip-10-0-1-10.ec2.internal', labels: { 'gpu.nvidia.com/model': 'T4' } }, status: { allocatable: { 'nvidia.com/gpu': '1' } } },
    { metadata: { name: 'constructor' }, status: { allocatable: { cpu: '4' } } },
  ],
  pods: [{ metadata: { name: 'v', namespace: 'ml', uid: 'u-1' }, spec: { nodeName: 'a', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': '2' } } }] } }],
};

describe('hostile input: never a 5xx, always a reply kube-scheduler can decode', () => {
  // One router per kind, reused across runs as the Lambda reuses its container.
  const cached = harness({ cache: stateCache(cluster) }).router;
  const uncached = harness().router;
  const verb = fc.constantFrom('/filter', '/prioritize', '/preempt');

  it.each([
    ['ExtenderArgs', extenderArgs, fc.oneof({ weight: 9, arbitrary: fc.constantFrom('/filter', '/prioritize') }, { weight: 1, arbitrary: fc.constant('/preempt') })],
    ['ExtenderPreemptionArgs', preemptionArgs, fc.oneof({ weight: 9, arbitrary: fc.constant('/preempt') }, { weight: 1, arbitrary: fc.constantFrom('/filter', '/prioritize') })],
  ] as const)('%s-shaped bodies, mostly to their own verbs', async (_, args, paths) => {
    await fc.assert(
      fc.asyncProperty(paths, args, fc.boolean(), async (path, body, withCache) => {
        const text = expandMarkers(JSON.stringify(body));
        await check(withCache ? cached : uncached, path, text, withCache);
      }),
      { numRuns: 1000 },
    );
  });

  it('a deep value anywhere in an otherwise good request: refused when too deep, echoed intact when not', async () => {
    // A pod without a GPU request passes every node, so full-Nodes filter
    // echoes each node back: the path where a deep value used to overflow
    // JSON.stringify.
    const goodNode = (name: string, extra: unknown) => ({ metadata: { name }, status: { allocatable: { 'nvidia.com/gpu': '1' } }, extra });
    const where = fc.constantFrom('node', 'pod', 'names', 'victims', 'unknown');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/filter', '/prioritize', '/preempt'), where, deep, fc.boolean(), async (path, at, value, withCache) => {
        const body = {
          Pod: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], ...(at === 'pod' ? { x: value } : {}) } },
          Nodes: { items: [goodNode('a', at === 'node' ? value : 1), goodNode('b', 2)] },
          NodeNames: at === 'names' ? ['a', value] : ['a'],
          NodeNameToMetaVictims: { a: { Pods: [], NumPDBViolations: 0 }, ...(at === 'victims' ? { b: value } : {}) },
          ...(at === 'unknown' ? { Extra: value } : {}),
        };
        const text = expandMarkers(JSON.stringify(body));
        const depth = Number(/:(\d+)/.exec(value)?.[1]);
        const router = withCache ? cached : uncached;
        const response = await router({ method: 'POST', path, body: text });
        // At most 4 levels (body, Nodes, items, node) sit above the deep value, so 95 levels fit in 100.
        if (depth > 100) expect(response).toEqual({ status: 400, body: { Error: expect.stringContaining('JSON nests deeper than 100 levels') } });
        if (depth <= 95 && path === '/filter') {
          expect(response.status).toBe(200);
          expect((response.body as { Nodes: { items: unknown[] } }).Nodes.items).toEqual(body.Nodes.items.map((n) => expect.objectContaining({ metadata: n.metadata })));
        }
        await check(router, path, text, withCache);
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary JSON values in every field', async () => {
    const anyBody = fc.oneof(
      fc.jsonValue().map((v) => ({ Pod: v, Nodes: v, NodeNames: v, NodeNameToMetaVictims: v })),
      fc.record({ Pod: fc.jsonValue(), Nodes: fc.record({ items: fc.array(fc.jsonValue(), { maxLength: 5 }) }), NodeNames: fc.jsonValue() }),
      fc.record({ Pod: fc.object(), NodeNameToVictims: fc.dictionary(nodeName, fc.jsonValue()) }),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(verb, anyBody, fc.boolean(), async (path, body, withCache) => {
        await check(withCache ? cached : uncached, path, JSON.stringify(body), withCache);
      }),
      { numRuns: 500 },
    );
  });
});
