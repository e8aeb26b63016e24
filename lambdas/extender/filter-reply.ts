import type { FilterRejection, NodeInfo, RejectionReason } from '../scheduling';
import { NOT_IN_CACHE_MESSAGE } from './decision';
import type { ExtenderFilterResult, FailedNodesMap } from './wire-types';
import type { RequestedNodes } from './wire-json';
import { defineLazyField, jsonStringContent, requestedNamesOf, withWriter } from './wire-json';

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
  /**
   * NodeNames mode: the resolved candidates with the request's string for
   * each, which the reply echoes instead of reading each node's name
   * (wire-json.ts). Without it the nodes' own names are used.
   */
  readonly requested?: RequestedNodes;
}

const NODE_NOT_FOUND: RejectionReason = 'NodeNotFound';

export type RejectionGroups = ReadonlyMap<FilterRejection, readonly NodeInfo[]>;

/**
 * kube-scheduler's ExtenderFilterResult for a verdict. Its FailedNodes maps
 * are built only when something reads them (tests, the local tap): a
 * NodeNames reply is sent as text written from the verdict (wire-json.ts),
 * and a map of thousands of node names is the costliest object of the reply.
 * A node named "__proto__" is a key like any other in both forms.
 */
export function filterReply(verdict: FilterVerdict): ExtenderFilterResult {
  const { keptNames, keptItems, rejected, unknown, short, requested } = verdict;
  const notInCache = short ? NODE_NOT_FOUND : NOT_IN_CACHE_MESSAGE;
  const textOf = (status: FilterRejection): string => (short ? status.code : status.message);
  const namesOf = (nodes: readonly NodeInfo[]): string[] => (requested === undefined ? nodes.map((node) => node.name) : requestedNamesOf(requested, nodes));
  const kept = keptNames === null ? null : namesOf(keptNames);
  const body: ExtenderFilterResult = {
    Nodes: keptItems === null ? null : { items: keptItems },
    NodeNames: kept,
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
  if (kept === null) return body;

  return withWriter(body, () => {
    const groups = (unresolvable: boolean): MemberGroup[] => {
      const out: MemberGroup[] = [];
      for (const [status, nodes] of rejected) if (Boolean(status.unresolvable) === unresolvable) out.push({ names: namesOf(nodes), value: JSON.stringify(textOf(status)) });
      return out;
    };
    const unresolvable = groups(true);
    if (unknown.length > 0) unresolvable.unshift({ names: unknown, value: JSON.stringify(notInCache) });
    // Names read from the nodes, or from a request that held escapes, are escaped where they need it.
    return replyText(kept, groups(false), unresolvable, requested?.plain === true ? asIs : jsonStringContent);
  });
}

const asIs = (name: string): string => name;

/** Object members that share one value: the names (unquoted) and the value's JSON text. */
interface MemberGroup {
  readonly names: readonly string[];
  readonly value: string;
}

/**
 * The NodeNames reply's text as one join of small pieces: V8 sizes the result
 * once and copies each piece once, where joining each part and then the parts
 * copies the big FailedNodes member twice and leaves a rope that whoever reads
 * it flattens (a third copy; docs/benchmarks.md). Each name is one piece (the
 * name as it is when the request held no escape, else jsonStringContent), and
 * its quotes and what follows it up to the next name are another, so every
 * node costs two pieces and no string of its own. A map has no order,
 * so grouping changes the text, not the value; and a name repeated in a
 * NodeNames request is the same node with the same verdict, so a repeated key
 * carries one value wherever it lands.
 */
function replyText(kept: readonly string[], failed: readonly MemberGroup[], unresolvable: readonly MemberGroup[], content: (name: string) => string): string {
  // Sized up front: pushing thousands of pieces grows (copies) the array several times over.
  const parts = new Array<string>(4 + 2 * kept.length + memberPieces(failed) + memberPieces(unresolvable));
  let at = 0;
  parts[at++] = '{"Nodes":null,"NodeNames":[';
  for (let i = 0; i < kept.length; i++) {
    parts[at++] = i === 0 ? '"' : '","';
    parts[at++] = content(kept[i] as string);
  }
  parts[at++] = kept.length === 0 ? '],"FailedNodes":{' : '"],"FailedNodes":{';
  at = putMembers(parts, at, failed, content);
  parts[at++] = '},"FailedAndUnresolvableNodes":{';
  at = putMembers(parts, at, unresolvable, content);
  parts[at++] = '},"Error":""}';
  return parts.join('');
}

/** How many pieces putMembers writes for `groups`: two per name and a closing value per group. */
function memberPieces(groups: readonly MemberGroup[]): number {
  let pieces = 0;
  for (const { names } of groups) if (names.length > 0) pieces += 2 * names.length + 1;
  return pieces;
}

/** Writes `"name":value` members, comma-separated, of every group from `at`; returns where it stopped. */
function putMembers(parts: string[], at: number, groups: readonly MemberGroup[], content: (name: string) => string): number {
  let first = true;
  for (const { names, value } of groups) {
    if (names.length === 0) continue;
    const between = `":${value},"`;
    parts[at++] = first ? '"' : ',"';
    parts[at++] = content(names[0] as string);
    for (let i = 1; i < names.length; i++) {
      parts[at++] = between;
      parts[at++] = content(names[i] as string);
    }
    parts[at++] = `":${value}`;
    first = false;
  }
  return at;
}
