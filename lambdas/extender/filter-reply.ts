import type { FilterRejection, NodeInfo, RejectionReason } from '../scheduling';
import { NOT_IN_CACHE_MESSAGE } from './decision';
import type { ExtenderFilterResult, FailedNodesMap } from './wire-types';

/** What one /filter decided, before it is put in kube-scheduler's reply shape. */
export interface FilterVerdict {
  /** NodeNames mode: the nodes kept, in request order; null in Nodes mode. */
  readonly keptNames: readonly NodeInfo[] | null;
  /** Nodes mode: the kept Node objects as received; null in NodeNames mode. */
  readonly keptItems: readonly unknown[] | null;
  /** The rejected nodes by rejection, each in request order (Profile.filterGrouped). */
  readonly rejected: RejectionGroups;
  /** NodeNames the cluster cache lacks. */
  readonly unknown: readonly string[];
  /** Reason codes instead of messages, when the messages would push the reply past what the ALB passes back. */
  readonly short: boolean;
}

const NODE_NOT_FOUND: RejectionReason = 'NodeNotFound';

export type RejectionGroups = ReadonlyMap<FilterRejection, readonly NodeInfo[]>;

/**
 * kube-scheduler's ExtenderFilterResult for a verdict. Nodes are named by
 * their own names: a NodeNames request resolves a name only to the node of
 * that name, so the names sent back are among the names received.
 */
export function filterReply(verdict: FilterVerdict): ExtenderFilterResult {
  const { keptNames, keptItems, rejected, unknown, short } = verdict;
  // Keyed by node names from the request: without a prototype, a node named
  // "__proto__" is a key like any other instead of replacing the prototype.
  const failed = Object.create(null) as FailedNodesMap;
  const unresolvable = Object.create(null) as FailedNodesMap;
  const notInCache = short ? NODE_NOT_FOUND : NOT_IN_CACHE_MESSAGE;
  for (const name of unknown) unresolvable[name] = notInCache;
  for (const [status, nodes] of rejected) {
    const map = status.unresolvable ? unresolvable : failed;
    const text = short ? status.code : status.message;
    for (const node of nodes) map[node.name] = text;
  }
  return {
    Nodes: keptItems === null ? null : { items: keptItems },
    NodeNames: keptNames === null ? null : keptNames.map((node) => node.name),
    FailedNodes: failed,
    FailedAndUnresolvableNodes: unresolvable,
    Error: '',
  };
}
