import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_IN_CACHE_MESSAGE } from '../../../../lambdas/extender/decision';
import { filterReply } from '../../../../lambdas/extender/filter-reply';
import { stringsNeedNoEscape } from '../../../../lambdas/extender/json-limits';
import { wireText } from '../../../../lambdas/extender/wire-json';
import type { NodeInfo } from '../../../../lambdas/scheduling';
import { nodeInfoFromKubernetes, reject } from '../../../../lambdas/scheduling';
import { groupByRejection } from '../scheduling/cycle';

function nodeNamed(name: string): NodeInfo {
  const node = nodeInfoFromKubernetes({ metadata: { name }, status: { allocatable: { 'nvidia.com/gpu': '1' } } });
  if (node === undefined) throw new Error(`no node for ${JSON.stringify(name)}`);
  return node;
}

const REASONS = [
  reject('InsufficientGpus', 'requested 4, free 2'),
  reject('GpuModelMismatch', 'pod wants "A100", node has T4 \\ "quoted"', true),
  reject('InsufficientGpuMemory', 'GPU memory 16 GiB < 40 GiB ≥ asked — 🙂', false),
];

// Node names as arbitrary as a hostile request's: quotes, backslashes,
// control characters, lone surrogates, "__proto__", integer-like keys.
const anyName = fc.oneof(fc.string({ minLength: 1, unit: 'binary' }), fc.constantFrom('__proto__', 'constructor', '0', '17', 'ip-10-0-0-1.ec2.internal'));

// As a NodeNames request resolves: a name is one node with one verdict (a
// name repeated in the request repeats that node and its verdict), and
// unknown names are the ones the cache lacks.
const verdict = fc
  .record({
    rejectedNodes: fc.uniqueArray(fc.tuple(anyName, fc.nat({ max: REASONS.length - 1 })), { selector: ([name]) => name, maxLength: 6 }),
    repeats: fc.array(fc.nat(), { maxLength: 3 }),
    kept: fc.array(anyName, { maxLength: 6 }),
    unknown: fc.array(anyName, { maxLength: 4 }),
    short: fc.boolean(),
  })
  .map(({ rejectedNodes, repeats, kept, unknown, short }) => {
    const rejected = rejectedNodes.map(([name, reason]) => ({ node: nodeNamed(name), status: REASONS[reason] ?? REASONS[0]! }));
    for (const at of repeats) if (rejected.length > 0) rejected.push(rejected[at % rejected.length]!);
    const resolved = new Set([...kept, ...rejectedNodes.map(([name]) => name)]);
    return { kept, rejected, unknown: unknown.filter((name) => !resolved.has(name)), short };
  });

describe('filterReply', () => {
  it('sends text that reads back as the reply object, for any node names (NodeNames mode)', () => {
    fc.assert(
      fc.property(verdict, fc.boolean(), ({ kept, rejected, unknown, short }, echoRequest) => {
        const keptNodes = kept.map(nodeNamed);
        // As the filter verb passes them: the candidates in request order with the request's strings.
        const candidates = [...keptNodes, ...rejected.map((r) => r.node)];
        const names = candidates.map((n) => n.name);
        // As the router tells it from the request's text.
        const requested = { nodes: candidates, names, plain: stringsNeedNoEscape(JSON.stringify({ NodeNames: [...names, ...unknown] })) };
        const body = filterReply({ keptNames: keptNodes, keptItems: null, rejected: groupByRejection(rejected), unknown, short, ...(echoRequest ? { requested } : {}) });
        expect(JSON.parse(wireText(body))).toEqual(JSON.parse(JSON.stringify(body)));
        expect(body.NodeNames).toEqual(kept);
      }),
      { numRuns: 400 },
    );
  });

  it("echoes the request's strings for the nodes (requested), kept and rejected alike", () => {
    const [a, b] = [nodeNamed('a'), nodeNamed('b')];
    const body = filterReply({
      keptNames: [a],
      keptItems: null,
      rejected: groupByRejection([{ node: b, status: REASONS[1]! }]),
      unknown: [],
      short: false,
      requested: { nodes: [a, b], names: ['a-as-sent', 'b-as-sent'], plain: true },
    });
    const sent = JSON.parse(wireText(body)) as { NodeNames: string[]; FailedAndUnresolvableNodes: Record<string, string> };
    expect(sent.NodeNames).toEqual(['a-as-sent']);
    expect(Object.keys(sent.FailedAndUnresolvableNodes)).toEqual(['b-as-sent']);
  });

  it('puts unresolvable rejections and unknown nodes in FailedAndUnresolvableNodes, codes instead of messages when short', () => {
    const a = nodeNamed('a');
    const b = nodeNamed('b');
    const rejected = [
      { node: a, status: REASONS[0]! },
      { node: b, status: REASONS[1]! },
    ];
    const full = filterReply({ keptNames: [nodeNamed('k')], keptItems: null, rejected: groupByRejection(rejected), unknown: ['gone'], short: false });
    expect(full).toEqual({
      Nodes: null,
      NodeNames: ['k'],
      FailedNodes: { a: REASONS[0]!.message },
      FailedAndUnresolvableNodes: { gone: NOT_IN_CACHE_MESSAGE, b: REASONS[1]!.message },
      Error: '',
    });
    expect(JSON.parse(wireText(full))).toEqual(full);
    const short = filterReply({ keptNames: [], keptItems: null, rejected: groupByRejection(rejected), unknown: ['gone'], short: true });
    expect(JSON.parse(wireText(short))).toEqual({
      Nodes: null,
      NodeNames: [],
      FailedNodes: { a: 'InsufficientGpus' },
      FailedAndUnresolvableNodes: { gone: 'NodeNotFound', b: 'GpuModelMismatch' },
      Error: '',
    });
  });

  it('keeps a node named "__proto__" as a key in the map object, without touching its prototype', () => {
    const body = filterReply({ keptNames: [], keptItems: null, rejected: groupByRejection([{ node: nodeNamed('__proto__'), status: REASONS[0]! }]), unknown: [], short: false });
    expect(Object.keys(body.FailedNodes)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(body.FailedNodes)).toBeNull();
    expect(Object.keys(JSON.parse(wireText(body)).FailedNodes)).toEqual(['__proto__']);
  });

  it('echoes the kept Node objects in Nodes mode and leaves that reply to JSON.stringify', () => {
    const items = [{ metadata: { name: 'k', labels: { x: '"y"' } } }];
    const body = filterReply({ keptNames: null, keptItems: items, rejected: groupByRejection([{ node: nodeNamed('a'), status: REASONS[0]! }]), unknown: [], short: false });
    expect(body.Nodes).toEqual({ items });
    expect(body.NodeNames).toBeNull();
    expect(wireText(body)).toBe(JSON.stringify(body));
  });
});
