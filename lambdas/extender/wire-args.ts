import { isRecord } from '../scheduling';

/**
 * Validation of kube-scheduler's extender requests. Go's encoding/json
 * matches field names case-insensitively, so we do too: kube-scheduler sends
 * PascalCase, hand-written clients often send camelCase.
 */

export type NodeInput =
  | { readonly mode: 'Nodes'; readonly items: readonly unknown[] }
  | { readonly mode: 'NodeNames'; readonly names: readonly string[] };

export interface FilterArgs {
  readonly pod: Readonly<Record<string, unknown>>;
  readonly nodes: NodeInput;
}

export interface VictimSet {
  /** UIDs of the pods the scheduler would evict on this node. */
  readonly uids: readonly string[];
  readonly numPdbViolations: number;
}

export interface PreemptArgs {
  readonly pod: Readonly<Record<string, unknown>>;
  readonly victims: ReadonlyMap<string, VictimSet>;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export function field(object: Readonly<Record<string, unknown>>, name: string): unknown {
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  for (const key in object) if (key.toLowerCase() === lower) return object[key];
  return undefined;
}

function podOf(args: Readonly<Record<string, unknown>>, kind: string): Parsed<Readonly<Record<string, unknown>>> {
  const pod = field(args, 'Pod');
  if (!isRecord(pod)) return { ok: false, error: `${kind}.Pod is missing or not an object` };
  return { ok: true, value: pod };
}

/** ExtenderArgs for filter and prioritize. */
export function parseExtenderArgs(body: unknown): Parsed<FilterArgs> {
  if (!isRecord(body)) return { ok: false, error: 'request body must be a JSON object (ExtenderArgs)' };
  const pod = podOf(body, 'ExtenderArgs');
  if (!pod.ok) return pod;

  const nodes = field(body, 'Nodes');
  if (nodes !== undefined && nodes !== null) {
    if (!isRecord(nodes)) return { ok: false, error: 'ExtenderArgs.Nodes must be a NodeList object' };
    const items = field(nodes, 'items');
    if (items !== undefined && items !== null && !Array.isArray(items)) return { ok: false, error: 'ExtenderArgs.Nodes.items must be an array' };
    return { ok: true, value: { pod: pod.value, nodes: { mode: 'Nodes', items: Array.isArray(items) ? items : [] } } };
  }

  const names = field(body, 'NodeNames');
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
      return { ok: false, error: 'ExtenderArgs.NodeNames must be an array of strings' };
    }
    return { ok: true, value: { pod: pod.value, nodes: { mode: 'NodeNames', names: names as string[] } } };
  }
  return { ok: false, error: 'ExtenderArgs has neither Nodes nor NodeNames' };
}

/** ExtenderPreemptionArgs: NodeNameToMetaVictims (nodeCacheCapable) or NodeNameToVictims. */
export function parsePreemptionArgs(body: unknown): Parsed<PreemptArgs> {
  if (!isRecord(body)) return { ok: false, error: 'request body must be a JSON object (ExtenderPreemptionArgs)' };
  const pod = podOf(body, 'ExtenderPreemptionArgs');
  if (!pod.ok) return pod;
  const meta = field(body, 'NodeNameToMetaVictims');
  const full = field(body, 'NodeNameToVictims');
  const source = meta ?? full;
  const which = meta !== undefined && meta !== null ? 'NodeNameToMetaVictims' : 'NodeNameToVictims';
  if (source === undefined || source === null) return { ok: true, value: { pod: pod.value, victims: new Map() } };
  if (!isRecord(source)) return { ok: false, error: `ExtenderPreemptionArgs.${which} must be an object keyed by node name` };

  const victims = new Map<string, VictimSet>();
  for (const nodeName in source) {
    const entry = source[nodeName];
    if (entry === null) {
      victims.set(nodeName, { uids: [], numPdbViolations: 0 });
      continue;
    }
    if (!isRecord(entry)) return { ok: false, error: `ExtenderPreemptionArgs.${which}[${JSON.stringify(nodeName)}] must be an object` };
    const pods = field(entry, 'Pods');
    if (pods !== undefined && pods !== null && !Array.isArray(pods)) {
      return { ok: false, error: `ExtenderPreemptionArgs.${which}[${JSON.stringify(nodeName)}].Pods must be an array` };
    }
    const uids: string[] = [];
    for (const victim of Array.isArray(pods) ? pods : []) {
      const uid = victimUid(victim);
      if (uid === undefined) return { ok: false, error: `ExtenderPreemptionArgs.${which}[${JSON.stringify(nodeName)}] has a victim without a UID` };
      uids.push(uid);
    }
    const violations = field(entry, 'NumPDBViolations');
    victims.set(nodeName, { uids, numPdbViolations: typeof violations === 'number' && Number.isFinite(violations) ? violations : 0 });
  }
  return { ok: true, value: { pod: pod.value, victims } };
}

/** MetaPod {UID} or a full Pod {metadata: {uid}}. */
function victimUid(victim: unknown): string | undefined {
  if (!isRecord(victim)) return undefined;
  const uid = field(victim, 'UID');
  if (typeof uid === 'string' && uid !== '') return uid;
  const metadata = victim.metadata;
  if (isRecord(metadata) && typeof metadata.uid === 'string' && metadata.uid !== '') return metadata.uid;
  return undefined;
}
