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
  readonly rejected: readonly RejectedNode[];
  /** NodeNames the cluster cache lacks. */
  readonly unknown: readonly string[];
  /** Reason codes instead of messages, when the messages would push the reply past what the ALB passes back. */
  readonly short: boolean;
}

const NODE_NOT_FOUND: RejectionReason = 'NodeNotFound';

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
    for (const { node, status } of rejected) if (Boolean(status.unresolvable) === unresolvable) map[node.name] = textOf(status);
    return map;
  };
  defineLazyField(body, 'FailedNodes', () => mapOf(false));
  defineLazyField(body, 'FailedAndUnresolvableNodes', () => mapOf(true));
  if (keptNames === null) return body;

  return withWriter(body, () => {
    // Members grouped by rejection (plugins share one status object per
    // reason, so there are a handful): each group is one join of its quoted
    // names with the quoted message between them, no string per node. A map
    // has no order, so grouping changes the text, not the value; and a name
    // repeated in a NodeNames request is the same node with the same
    // verdict, so a repeated key carries one value wherever it lands.
    const failed: string[] = [];
    const unresolvable: string[] = [];
    if (unknown.length > 0) unresolvable.push(membersWithValue(unknown.map((name) => JSON.stringify(name)), JSON.stringify(notInCache)));
    const groups = new Map<FilterRejection, string[]>();
    for (const { node, status } of rejected) {
      let names = groups.get(status);
      if (names === undefined) groups.set(status, (names = []));
      names.push(quotedNodeName(node));
    }
    for (const [status, names] of groups) (status.unresolvable ? unresolvable : failed).push(membersWithValue(names, JSON.stringify(textOf(status))));
    const kept = new Array<string>(keptNames.length);
    for (let i = 0; i < keptNames.length; i++) kept[i] = quotedNodeName(keptNames[i] as NodeInfo);
    return `{"Nodes":null,"NodeNames":[${kept.join(',')}],"FailedNodes":{${failed.join(',')}},"FailedAndUnresolvableNodes":{${unresolvable.join(',')}},"Error":""}`;
  });
}

/** `"a":v,"b":v,…`: JSON object members of quoted keys that share one JSON value. */
function membersWithValue(quotedKeys: readonly string[], value: string): string {
  return `${quotedKeys.join(`:${value},`)}:${value}`;
}
