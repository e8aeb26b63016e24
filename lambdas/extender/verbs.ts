import type { CycleState, FilterRejection, NodeInfo, Profile } from '../scheduling';
import { metadataOf, nodeInfoFromKubernetes, parsePodRequirements, Snapshot, stringField } from '../scheduling';
import { errorMessage } from '../common/error-message';
import { toExtenderScores } from './extender-scores';
import type { ExtenderFilterResult, ExtenderPreemptionResult, HostPriorityList, MetaVictims } from './wire-types';
import type { ClusterCache } from './cluster-cache';
import type { DecisionSummary } from './decision';
import { RejectionTally } from './decision';
import type { FilterArgs, NodeInput, PreemptArgs } from './wire-args';

export interface ExtenderContext {
  readonly profile: Profile;
  /** Cluster state; undefined when the extender has no cluster access (full-Nodes mode only). */
  readonly cache: ClusterCache | undefined;
  readonly warn: (message: string, details?: Readonly<Record<string, unknown>>) => void;
}

export interface VerbResult {
  readonly status: number;
  readonly body: unknown;
  readonly summary?: DecisionSummary;
  /** Set when the call failed as a whole (counted as an extender error). */
  readonly error?: string;
}

export const NO_CLUSTER_ACCESS =
  'NodeNames (nodeCacheCapable: true) needs cluster access: set KUBECONFIG or CLUSTER_NAME for the extender, or use nodeCacheCapable: false';

interface Candidates {
  readonly snapshot: Snapshot;
  readonly nodes: NodeInfo[];
  /** Nodes mode: the request's Node objects, parallel to `nodes`. */
  readonly raw: unknown[] | undefined;
  /** NodeNames mode: names the cache does not know. */
  readonly unknown: string[];
}

type Resolved = { readonly ok: true; readonly value: Candidates } | { readonly ok: false; readonly error: string };

function podName(pod: Readonly<Record<string, unknown>>): string {
  const metadata = metadataOf(pod);
  return `${stringField(metadata.namespace) ?? 'default'}/${stringField(metadata.name) ?? '?'}`;
}

async function resolve(ctx: ExtenderContext, input: NodeInput, pod: string): Promise<Resolved> {
  if (input.mode === 'Nodes') {
    const nodes: NodeInfo[] = [];
    const raw: unknown[] = [];
    for (const item of input.items) {
      const info = nodeInfoFromKubernetes(item);
      if (info === undefined) continue;
      nodes.push(info);
      raw.push(item);
    }
    let base: Snapshot | undefined;
    if (ctx.cache !== undefined) {
      try {
        base = await ctx.cache.snapshot();
      } catch (error) {
        // Full Node objects are enough to decide on model and memory; GPU
        // counts then come from allocatable alone (kube-scheduler still
        // checks them unless managedResources says ignoredByScheduler).
        ctx.warn('cluster cache unavailable; deciding from the request nodes alone', { pod, error: errorMessage(error) });
      }
    }
    return { ok: true, value: { snapshot: base ? Snapshot.overlay(base, nodes) : new Snapshot(nodes), nodes, raw, unknown: [] } };
  }

  if (ctx.cache === undefined) return { ok: false, error: NO_CLUSTER_ACCESS };
  let snapshot: Snapshot;
  try {
    snapshot = await ctx.cache.snapshot();
  } catch (error) {
    return { ok: false, error: `cluster cache unavailable: ${errorMessage(error)}` };
  }
  let resolved = resolveNames(snapshot, input.names);
  if (resolved.unknown.length > 0) {
    // A node that registered after the last refresh: rejecting it would park
    // the pod as unschedulable until some other cluster event, so list again
    // once (at most every UNKNOWN_NODE_REFRESH_MS, so names that stay unknown,
    // e.g. outside the label selector, cannot turn every request into a list).
    try {
      const fresher = await ctx.cache.snapshot({ maxAgeMs: UNKNOWN_NODE_REFRESH_MS });
      if (fresher !== snapshot) {
        snapshot = fresher;
        resolved = resolveNames(snapshot, input.names);
      }
    } catch (error) {
      ctx.warn('cluster cache refresh for unknown nodes failed; deciding with the cached snapshot', { pod, error: errorMessage(error) });
    }
  }
  return { ok: true, value: { snapshot, nodes: resolved.nodes, raw: undefined, unknown: resolved.unknown } };
}

/** A request naming nodes the snapshot lacks refreshes it if it is older than this. */
export const UNKNOWN_NODE_REFRESH_MS = 1_000;

/** Per snapshot, the nodes of the last NodeNames request in its order, and each node's position in it. */
interface LastOrder {
  readonly nodes: readonly NodeInfo[];
  readonly positions: Map<NodeInfo, number>;
}

const lastOrders = new WeakMap<Snapshot, LastOrder>();

/** How far past the expected position a name is looked for before falling back to the index. */
const LOOKAHEAD = 8;

/**
 * Resolves names against the snapshot. kube-scheduler sends its candidates in
 * one stable order: /prioritize gets the subsequence /filter kept, the next
 * pod's /filter the same list rotated by its start index. So each name is
 * first compared with the few nodes after the previous match in the last
 * order, a plain string comparison, and only a miss pays the hash lookup of a
 * freshly parsed string in the snapshot's name index. A node is only ever
 * taken when its name equals the requested one, so the order only changes
 * the cost, never the result.
 */
function resolveNames(snapshot: Snapshot, names: readonly string[]): { nodes: NodeInfo[]; unknown: string[] } {
  const last = lastOrders.get(snapshot);
  const order = last?.nodes ?? [];
  const nodes: NodeInfo[] = [];
  const unknown: string[] = [];
  let cursor = 0;
  let misses = 0;
  for (const name of names) {
    let node: NodeInfo | undefined;
    for (let k = cursor, end = Math.min(order.length, cursor + LOOKAHEAD); k < end; k++) {
      const candidate = order[k] as NodeInfo;
      if (candidate.name === name) {
        node = candidate;
        cursor = k + 1;
        break;
      }
    }
    if (node === undefined) {
      misses++;
      node = snapshot.getNode(name);
      if (node === undefined) {
        unknown.push(name);
        continue;
      }
      const at = last?.positions.get(node);
      if (at !== undefined) cursor = at + 1;
    }
    nodes.push(node);
  }
  // Keep an order that predicted this list (a subsequence or a rotation of
  // it); replace one that did not.
  if (last === undefined || misses > names.length / 4) {
    const positions = new Map<NodeInfo, number>();
    for (let i = 0; i < nodes.length; i++) positions.set(nodes[i] as NodeInfo, i);
    lastOrders.set(snapshot, { nodes, positions });
  }
  return { nodes, unknown };
}

/** Runs the profile's filters over `nodes`; returns the indexes that pass and tallies (and reports) the rest. */
function passingNodes(
  profile: Profile,
  state: CycleState,
  nodes: readonly NodeInfo[],
  tally: RejectionTally,
  onReject?: (node: NodeInfo, status: FilterRejection) => void,
): number[] {
  const passing: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i] as NodeInfo;
    const status = profile.filterNode(state, node);
    if (status.ok) {
      passing.push(i);
      continue;
    }
    tally.add(status);
    onReject?.(node, status);
  }
  return passing;
}

function notFoundMessage(name: string): string {
  return `Node ${name} is not in the extender's cluster cache (new node, or outside the cache's label selector)`;
}

export async function filterVerb(ctx: ExtenderContext, args: FilterArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  const resolved = await resolve(ctx, args.nodes, pod);
  if (!resolved.ok) {
    const body: ExtenderFilterResult = { Nodes: null, NodeNames: null, FailedNodes: {}, FailedAndUnresolvableNodes: {}, Error: resolved.error };
    return { status: 200, body, error: resolved.error };
  }
  const { snapshot, nodes, raw, unknown } = resolved.value;
  const requirements = parsePodRequirements(args.pod);
  const profile = ctx.profile;
  const state = profile.startCycle(snapshot, requirements);

  const tally = new RejectionTally();
  const failed: Record<string, string> = {};
  const unresolvable: Record<string, string> = {};
  for (const name of unknown) {
    const message = notFoundMessage(name);
    unresolvable[name] = message;
    tally.addNotFound(message);
  }
  const kept = passingNodes(profile, state, nodes, tally, (node, status) => {
    (status.unresolvable ? unresolvable : failed)[node.name] = status.message;
  });
  const keptNames = kept.map((i) => (nodes[i] as NodeInfo).name);
  const keptItems = raw === undefined ? [] : kept.map((i) => raw[i]);

  const byNames = args.nodes.mode === 'NodeNames';
  const body: ExtenderFilterResult = {
    Nodes: byNames ? null : { items: keptItems },
    NodeNames: byNames ? keptNames : null,
    FailedNodes: failed,
    FailedAndUnresolvableNodes: unresolvable,
    Error: '',
  };
  const candidates = nodes.length + unknown.length;
  return { status: 200, body, summary: tally.summary(pod, args.nodes.mode, candidates, keptNames.length) };
}

export async function prioritizeVerb(ctx: ExtenderContext, args: FilterArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  const resolved = await resolve(ctx, args.nodes, pod);
  if (!resolved.ok) return { status: 503, body: { Error: resolved.error }, error: resolved.error };
  const { snapshot, nodes, unknown } = resolved.value;
  const profile = ctx.profile;
  const state = profile.startCycle(snapshot, parsePodRequirements(args.pod));
  const tally = new RejectionTally();
  for (const name of unknown) tally.addNotFound(notFoundMessage(name));

  // Scores only mean something where the pod fits; the rest get 0.
  const feasibleAt = passingNodes(profile, state, nodes, tally);
  const feasible = feasibleAt.map((i) => nodes[i] as NodeInfo);
  const scores = profile.score(state, feasible);
  const feasibleScores = toExtenderScores(scores);
  const nodeScores = new Uint8Array(nodes.length);
  for (let j = 0; j < feasible.length; j++) nodeScores[feasibleAt[j] as number] = feasibleScores[j] ?? 0;

  const body: HostPriorityList = [];
  if (args.nodes.mode === 'NodeNames' && unknown.length > 0) {
    const byName = new Map<string, number>();
    for (let i = 0; i < nodes.length; i++) byName.set((nodes[i] as NodeInfo).name, nodeScores[i] ?? 0);
    for (const name of args.nodes.names) body.push({ Host: name, Score: byName.get(name) ?? 0 });
  } else {
    // Every input resolved: `nodes` is the input, in order.
    for (let i = 0; i < nodes.length; i++) body.push({ Host: (nodes[i] as NodeInfo).name, Score: nodeScores[i] ?? 0 });
  }
  return { status: 200, body, summary: tally.summary(pod, args.nodes.mode, nodes.length + unknown.length, feasible.length) };
}

/**
 * Keeps the preemption candidates on which the pod would pass our filters
 * once the scheduler's chosen victims are gone. Needs cluster state to know
 * the nodes; without cluster access every candidate is passed through
 * unchanged (and a warning logged), since nothing can be judged.
 */
export async function preemptVerb(ctx: ExtenderContext, args: PreemptArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  const result: ExtenderPreemptionResult = { NodeNameToMetaVictims: {} };
  const meta = (uids: readonly string[], numPdbViolations: number): MetaVictims => ({
    Pods: uids.map((UID) => ({ UID })),
    NumPDBViolations: numPdbViolations,
  });

  if (ctx.cache === undefined) {
    ctx.warn('preempt without cluster access: candidates passed through unchecked', { pod, candidates: args.victims.size });
    for (const [name, victims] of args.victims) result.NodeNameToMetaVictims[name] = meta(victims.uids, victims.numPdbViolations);
    return { status: 200, body: result, summary: new RejectionTally().summary(pod, 'MetaVictims', args.victims.size, args.victims.size) };
  }
  let snapshot: Snapshot;
  try {
    snapshot = await ctx.cache.snapshot();
  } catch (error) {
    const message = `cluster cache unavailable: ${errorMessage(error)}`;
    return { status: 503, body: { Error: message }, error: message };
  }

  const state = ctx.profile.startCycle(snapshot, parsePodRequirements(args.pod));
  const tally = new RejectionTally();
  let kept = 0;
  for (const [name, victims] of args.victims) {
    const node = snapshot.getNode(name);
    if (node === undefined) {
      tally.addNotFound(notFoundMessage(name));
      continue;
    }
    const afterEviction = node.clone();
    for (const uid of victims.uids) afterEviction.removePod(uid);
    const status = ctx.profile.filterNode(state, afterEviction);
    if (!status.ok) {
      tally.add(status);
      continue;
    }
    result.NodeNameToMetaVictims[name] = meta(victims.uids, victims.numPdbViolations);
    kept++;
  }
  return { status: 200, body: result, summary: tally.summary(pod, 'MetaVictims', args.victims.size, kept) };
}
