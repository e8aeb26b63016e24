import { isRecord } from '../scheduling';

/**
 * Validation of kube-scheduler's extender requests. Go's encoding/json
 * matches field names case-insensitively, so we do too: kube-scheduler sends
 * PascalCase, hand-written clients often send camelCase. Unknown fields are
 * ignored, as Go does, so a newer kube-scheduler adding a field still works.
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
  /** A safe integer ≥ 0, so it goes back to kube-scheduler's int64 unchanged. */
  readonly numPdbViolations: number;
}

export interface PreemptArgs {
  readonly pod: Readonly<Record<string, unknown>>;
  readonly victims: ReadonlyMap<string, VictimSet>;
  /**
   * Candidates whose entry kube-scheduler could not have sent (no victim
   * UID, a NumPDBViolations that is not a count, …), by node name, with the
   * reason. They are left out of the reply rather than failing the request:
   * an unoffered candidate only means no preemption there, while an error
   * would fail preemption on every node.
   */
  readonly invalid: ReadonlyMap<string, string>;
}

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

/**
 * Most nodes (or preemption candidates) one request may name. kube-scheduler
 * sends at most the nodes that passed its own filters, which its default
 * percentageOfNodesToScore keeps to a few thousand even at 65,000 nodes, and
 * Kubernetes supports 5,000 nodes per cluster. The 1 MB body alone would let
 * through 200,000 one-letter names: work for nothing, and a reply far past
 * the ALB's 1 MB response limit (which the ALB turns into a 502).
 */
export const MAX_NODES_PER_REQUEST = 10_000;

export function field(object: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  const lower = name.toLowerCase();
  for (const key in object) if (key.toLowerCase() === lower) return object[key];
  return undefined;
}

function podOf(args: Readonly<Record<string, unknown>>, kind: string): Parsed<Readonly<Record<string, unknown>>> {
  const pod = field(args, 'Pod');
  if (!isRecord(pod)) return { ok: false, error: `${kind}.Pod is missing or not an object` };
  return { ok: true, value: pod };
}

/** A short description of a bad value for an error message (the value itself may be megabytes). */
export function describeValue(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

function tooMany(what: string, count: number): string {
  return `${what} has ${count} entries; the extender takes at most ${MAX_NODES_PER_REQUEST} nodes per request`;
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
    if (items === undefined || items === null) return { ok: true, value: { pod: pod.value, nodes: { mode: 'Nodes', items: [] } } };
    if (!Array.isArray(items)) return { ok: false, error: 'ExtenderArgs.Nodes.items must be an array' };
    if (items.length > MAX_NODES_PER_REQUEST) return { ok: false, error: tooMany('ExtenderArgs.Nodes.items', items.length) };
    // Items that are not Node objects with a name are dropped later, one by one.
    return { ok: true, value: { pod: pod.value, nodes: { mode: 'Nodes', items } } };
  }

  const names = field(body, 'NodeNames');
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names)) return { ok: false, error: 'ExtenderArgs.NodeNames must be an array of strings' };
    if (names.length > MAX_NODES_PER_REQUEST) return { ok: false, error: tooMany('ExtenderArgs.NodeNames', names.length) };
    const problem = nodeNamesProblem(names);
    if (problem !== undefined) return { ok: false, error: problem };
    return { ok: true, value: { pod: pod.value, nodes: { mode: 'NodeNames', names: names as string[] } } };
  }
  return { ok: false, error: 'ExtenderArgs has neither Nodes nor NodeNames' };
}

/**
 * What makes NodeNames unusable, if anything: a name that is not a string.
 * A name sent twice is answered twice, each time like any other name:
 * kube-scheduler never repeats one, and finding repeats would cost a hash
 * of every name on the hot path.
 */
function nodeNamesProblem(names: readonly unknown[]): string | undefined {
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (typeof name !== 'string') return `ExtenderArgs.NodeNames must be an array of strings; [${i}] is ${describeValue(name)}`;
  }
  return undefined;
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
  const victims = new Map<string, VictimSet>();
  const invalid = new Map<string, string>();
  if (source === undefined || source === null) return { ok: true, value: { pod: pod.value, victims, invalid } };
  if (!isRecord(source)) return { ok: false, error: `ExtenderPreemptionArgs.${which} must be an object keyed by node name` };

  const nodeNames = Object.keys(source);
  if (nodeNames.length > MAX_NODES_PER_REQUEST) return { ok: false, error: tooMany(`ExtenderPreemptionArgs.${which}`, nodeNames.length) };
  for (const nodeName of nodeNames) {
    const set = victimSetOf(source[nodeName]);
    if (typeof set === 'string') invalid.set(nodeName, `${which}[${describeValue(nodeName)}]${set}`);
    else victims.set(nodeName, set);
  }
  return { ok: true, value: { pod: pod.value, victims, invalid } };
}

/** One candidate's victims, or what is wrong with them (a message tail: ".Pods must be an array"). */
function victimSetOf(entry: unknown): VictimSet | string {
  // Go decodes null into a zero Victims: no victims, no violations.
  if (entry === null) return { uids: [], numPdbViolations: 0 };
  if (!isRecord(entry)) return ` must be an object, not ${describeValue(entry)}`;
  const pods = field(entry, 'Pods');
  if (pods !== undefined && pods !== null && !Array.isArray(pods)) return `.Pods must be an array, not ${describeValue(pods)}`;
  const uids: string[] = [];
  if (Array.isArray(pods)) {
    for (let i = 0; i < pods.length; i++) {
      const uid = victimUid(pods[i]);
      if (uid === undefined) return `.Pods[${i}] has no UID`;
      uids.push(uid);
    }
  }
  const violations = pdbViolations(field(entry, 'NumPDBViolations'));
  if (typeof violations === 'string') return `.NumPDBViolations ${violations}`;
  return { uids, numPdbViolations: violations };
}

/**
 * NumPDBViolations is an int64 in kube-scheduler, and we send it back: a
 * fraction, 1e300 or a string would make the scheduler fail to decode our
 * reply. Negative counts mean nothing, and integers past 2^53 were already
 * rounded by JSON.parse, so echoing them would change the number.
 */
function pdbViolations(value: unknown): number | string {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value === 0 ? 0 : value; // -0 becomes 0
  return `is ${describeValue(value)}, not a whole number 0..${Number.MAX_SAFE_INTEGER}`;
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
