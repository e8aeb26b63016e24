import type { FilterRejection, NodeInfo, RejectedNode, RejectionReason } from '../scheduling';
import { NOT_IN_CACHE_MESSAGE } from './decision';
import type { ExtenderFilterResult, FailedNodesMap } from './wire-types';
import { defineLazyField, quotedNodeName, withWriter } from './wire-json';

/** What one /filter decided, before it is put in kube-scheduler's reply shape. */
export interface FilterVerdict {
  /** NodeNames mode: the nodes kept, in request order; null in Nodes mode. */
  readonly keptNames: readonly NodeInfo[] | null;
  /** Nodes mode: the kept Node objects as received; null in NodeNames mode. */
  readonly keptItems: readonly unknown[] | null;
  /** The rejected nodes by rejection, each in request order (groupRejections). */
  readonly rejected: RejectionGroups;
  /** NodeNames the cluster cache lacks. */
  readonly unknown: readonly string[];
  /** Reason codes instead of messages, when the messages would push the reply past what the ALB passes back. */
  readonly short: boolean;
}

const NODE_NOT_FOUND: RejectionReason = 'NodeNotFound';

export type RejectionGroups = ReadonlyMap<FilterRejection, readonly NodeInfo[]>;

/**
 * Rejected nodes by rejection. Plugins share one status object per reason,
 * so a /filter over thousands of nodes has a handful of groups, and the
 * tally, the reply's size and its text each take one step per group instead
 * of one per node.
 */
export function groupRejections(rejected: readonly RejectedNode[]): Map<FilterRejection, NodeInfo[]> {
  const groups = new Map<FilterRejection, NodeInfo[]>();
  let last: FilterRejection | undefined;
  let nodes: NodeInfo[] = [];
  for (const { node, status } of rejected) {
    // Neighbours mostly share a reason (one node group after another): skip the lookup then.
    if (status !== last) {
      let group = groups.get(status);
      if (group === undefined) groups.set(status, (group = []));
      nodes = group;
      last = status;
    }
    nodes.push(node);
  }
  return groups;
}

/**
 * kube-scheduler's ExtenderFilterResult for a verdict. Its FailedNodes maps
 * are built only when something reads them (tests, the local tap): a
 * NodeNames reply is sent as text written from the verdict (wire-json.ts),
 * and a map of thousands of node names is the costliest object of the reply.
 * A node named "__proto__" is a key like any other in both forms.
 */
export function filterReply(verdict: FilterVerdict): ExtenderFilterResult {
  const { keptNames, keptItems, rejected, unknown, short } = verdict;
  const notInCache = short ? NODE_NOT_FOUND : NOT_IN_CACHE_MESSAGE;
  const textOf = (status: FilterRejection): string => (short ? status.code : status.message);
  const body: ExtenderFilterResult = {
    Nodes: keptItems === null ? null : { items: keptItems },
    NodeNames: keptNames === null ? null : keptNames.map((node) => node.name),
    FailedNodes: {},
    FailedAndUnresolvableNodes: {},
    Error: '',
  };
  const mapOf = (unresolvable: boolean): FailedNodesMap => {
    const map = Object.create(null) as FailedNodesMap;
    if (unresolvable) for (const name of unknown) map[name] = notInCache;
    for (const [status, nodes] of rejected) if (Boolean(status.unresolvable) === unresolvable) for (const node of nodes) map[node.name] = textOf(status);
    return map;
  };
  defineLazyField(body, 'FailedNodes', () => mapOf(false));
  defineLazyField(body, 'FailedAndUnresolvableNodes', () => mapOf(true));
  if (keptNames === null) return body;

  return withWriter(body, () => replyText(keptNames, rejected, unknown, JSON.stringify(notInCache), (status) => JSON.stringify(textOf(status))));
}

/**
 * The NodeNames reply's text as one join of small pieces: V8 sizes the result
 * once and copies each piece once, where joining each part and then the parts
 * copies the big FailedNodes member twice and leaves a rope that whoever reads
 * it flattens (a third copy; docs/benchmarks.md). Each rejected node's value
 * is the one quoted text of its group. A map has no order, so grouping changes
 * the text, not the value; and a name repeated in a NodeNames request is the
 * same node with the same verdict, so a repeated key carries one value
 * wherever it lands.
 */
function replyText(kept: readonly NodeInfo[], rejected: RejectionGroups, unknown: readonly string[], notInCache: string, quotedText: (status: FilterRejection) => string): string {
  const parts: string[] = ['{"Nodes":null,"NodeNames":['];
  for (let i = 0; i < kept.length; i++) {
    if (i > 0) parts.push(',');
    parts.push(quotedNodeName(kept[i] as NodeInfo));
  }
  parts.push('],"FailedNodes":{');
  let first = true;
  for (const [status, nodes] of rejected) {
    if (status.unresolvable) continue;
    first = pushMembers(parts, nodes, `:${quotedText(status)}`, first);
  }
  parts.push('},"FailedAndUnresolvableNodes":{');
  first = true;
  const unknownValue = `:${notInCache}`;
  for (const name of unknown) {
    if (!first) parts.push(',');
    parts.push(JSON.stringify(name), unknownValue);
    first = false;
  }
  for (const [status, nodes] of rejected) {
    if (!status.unresolvable) continue;
    first = pushMembers(parts, nodes, `:${quotedText(status)}`, first);
  }
  parts.push('},"Error":""}');
  return parts.join('');
}

/** Pushes `"name":value` members of `nodes` that share one `:value` text; returns whether the object is still empty. */
function pushMembers(parts: string[], nodes: readonly NodeInfo[], value: string, first: boolean): boolean {
  for (let i = 0; i < nodes.length; i++) {
    if (!first || i > 0) parts.push(',');
    parts.push(quotedNodeName(nodes[i] as NodeInfo), value);
  }
  return first && nodes.length === 0;
}
