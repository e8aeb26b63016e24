import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_IN_CACHE_MESSAGE } from '../../../../lambdas/extender/decision';
import { filterReply } from '../../../../lambdas/extender/filter-reply';
import type { NodeInfo } from '../../../../lambdas/scheduling';
import { nodeInfoFromKubernetes, reject } from '../../../../lambdas/scheduling';
import { groupByRejection } from '../scheduling/cycle';
import { decodeFilterResult } from './kube-scheduler-wire';

function nodeNamed(name: string): NodeInfo {
  const node = nodeInfoFromKubernetes({ metadata: { name }, status: { allocatable: { 'nvidia.com/gpu': '1' } } });
  if (node === undefined) throw new Error(`no node for ${JSON.stringify(name)}`);
  return node;
}

// reject() takes a RejectionReason: a code that does not exist fails typecheck.
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
  it('serialises, for any node names, to the result kube-scheduler decodes: every node once, in the map its rejection says', () => {
    fc.assert(
      fc.property(verdict, ({ kept, rejected, unknown, short }) => {
        const body = filterReply({ keptNames: kept.map(nodeNamed), keptItems: null, rejected: groupByRejection(rejected), unknown, short });
        const sent = decodeFilterResult(JSON.stringify(body));
        expect(sent.NodeNames).toEqual(kept);
        expect(sent.Nodes).toBeNull();
        expect(sent.Error).toBe('');
        const failed = new Map<string, string>();
        const unresolvable = new Map<string, string>(unknown.map((name) => [name, short ? 'NodeNotFound' : NOT_IN_CACHE_MESSAGE]));
        for (const { node, status } of rejected) (status.unresolvable ? unresolvable : failed).set(node.name, short ? status.code : status.message);
        expect(new Map([...sent.FailedNodes].sort())).toEqual(new Map([...failed].sort()));
        expect(new Map([...sent.FailedAndUnresolvableNodes].sort())).toEqual(new Map([...unresolvable].sort()));
      }),
      { numRuns: 400 },
    );
  });

  it('puts unresolvable rejections and unknown nodes in FailedAndUnresolvableNodes, codes instead of messages when short', () => {
    const a = nodeNamed('a');
    const b = nodeNamed('b');
    const rejected = [
      { node: a, status: REASONS[0]! },
      { node: b, status: REASONS[1]! },
    ];
    const full = filterReply({ keptNames: [nodeNamed('k')], keptItems: null, rejected: groupByRejection(rejected), unknown: ['gone'], short: false });
    expect(JSON.parse(JSON.stringify(full))).toEqual({
      Nodes: null,
      NodeNames: ['k'],
      FailedNodes: { a: REASONS[0]!.message },
      FailedAndUnresolvableNodes: { gone: NOT_IN_CACHE_MESSAGE, b: REASONS[1]!.message },
      Error: '',
    });
    const short = filterReply({ keptNames: [], keptItems: null, rejected: groupByRejection(rejected), unknown: ['gone'], short: true });
    expect(JSON.parse(JSON.stringify(short))).toEqual({
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
    expect([...decodeFilterResult(JSON.stringify(body)).FailedNodes.keys()]).toEqual(['__proto__']);
  });

  it('echoes the kept Node objects in Nodes mode', () => {
    const items = [{ metadata: { name: 'k', labels: { x: '"y"' } } }];
    const body = filterReply({ keptNames: null, keptItems: items, rejected: groupByRejection([{ node: nodeNamed('a'), status: REASONS[0]! }]), unknown: [], short: false });
    expect(decodeFilterResult(JSON.stringify(body))).toMatchObject({ Nodes: { items }, NodeNames: null });
  });
});
