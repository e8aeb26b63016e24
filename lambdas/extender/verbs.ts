import { errorMessage } from '../common/error-message';
import type { CycleState, NodeInfo, Profile, RejectedNode, ScoreBreakdown, Snapshot } from '../scheduling';
import { choiceIndices, explainIndices, metadataOf, parsePodRequirements, podGpuClaimKeys, stringField } from '../scheduling';
import type { CandidateResolver } from './candidate-nodes';
import { snapshotFreshnessFor } from './candidate-nodes';
import type { ClusterCache } from '../cluster-state/cluster-cache';
import type { DecisionSummary, ExtenderRanking } from './decision';
import { NOT_IN_CACHE_MESSAGE, RejectionTally } from './decision';
import { toExtenderScores } from './extender-scores';
import type { RejectionGroups } from './filter-reply';
import { filterReply } from './filter-reply';
import type { FilterMemo } from './filter-memo';
import type { FilterArgs, PreemptArgs, VictimSet } from './wire-args';
import type { ExtenderPreemptionResult, HostPriorityList, MetaVictims } from './wire-types';
import { MAX_EXTENDER_PRIORITY } from './wire-types';

export interface ExtenderContext {
  readonly profile: Profile;
  /** Cluster state; undefined when the extender has no cluster access (full-Nodes mode only). */
  readonly cache: ClusterCache | undefined;
  readonly candidates: CandidateResolver;
  /** The last NodeNames filter's verdicts, for the prioritize that follows it. */
  readonly filterMemo: FilterMemo;
  readonly warn: (message: string, details?: Readonly<Record<string, unknown>>) => void;
}

export interface VerbResult {
  readonly status: number;
  readonly body: unknown;
  readonly summary?: DecisionSummary;
  /** Set when the call failed as a whole (counted as an extender error). */
  readonly error?: string;
  /** Extra response headers (kube-scheduler ignores them; people and the demo read them). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * /prioritize: the nodes that shared the best score when there were several,
 * comma-separated (at most TIE_HEADER_MAX_NAMES, then "+N" for the rest),
 * the one given the top level first (toExtenderScores keeps
 * 10 for one of them). So `curl -i` and the local demo can say "tie" although
 * the reply itself no longer shows one.
 */
export const TIE_HEADER = 'x-gpu-extender-tie';

/**
 * Names listed in the tie header at most; the rest are counted ("+4990"). A
 * cluster of identical empty nodes ties everywhere, and the ALB caps what
 * a Lambda may return in headers far below the 1 MiB of a body.
 */
export const TIE_HEADER_MAX_NAMES = 8;

function tieHeaderValue(tied: readonly string[]): string {
  const shown = tied.slice(0, TIE_HEADER_MAX_NAMES);
  return tied.length > shown.length ? `${shown.join(',')},+${tied.length - shown.length}` : shown.join(',');
}

function podName(pod: Readonly<Record<string, unknown>>): string {
  const metadata = metadataOf(pod);
  return `${stringField(metadata.namespace) ?? 'default'}/${stringField(metadata.name) ?? '?'}`;
}

function warnFor(ctx: ExtenderContext, pod: string): (message: string, details: Readonly<Record<string, unknown>>) => void {
  return (message, details) => ctx.warn(message, { pod, ...details });
}

/**
 * The reply of a verb that has no cluster state to judge by (the cluster
 * cache failed, or NodeNames without cluster access): the same for /filter,
 * /prioritize and /preempt. kube-scheduler reads any status but 200 as the
 * extender's error without reading the body, so the body's Error is for
 * people (curl, the local server) and the message also goes to the log and
 * the ExtenderErrors metric. A 200 would be worse for /preempt: its result
 * has no Error field, so kube-scheduler would read `{"Error": …}` as "no
 * candidate kept" and give up preempting instead of failing the attempt
 * (docs/extender.md, "Endpoints").
 */
function unavailable(message: string): VerbResult {
  return { status: 503, body: { Error: message }, error: message };
}

function tallied(tally: RejectionTally, rejected: readonly RejectedNode[]): void {
  for (const { status } of rejected) tally.add(status);
}

export async function filterVerb(ctx: ExtenderContext, args: FilterArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  const resolved = await ctx.candidates(args.nodes, warnFor(ctx, pod), podGpuClaimKeys(args.pod), snapshotFreshnessFor(args.pod));
  if (!resolved.ok) return unavailable(resolved.error);
  const { snapshot, nodes, raw, unknown } = resolved.value;
  const profile = ctx.profile;
  const state = profile.startCycle(snapshot, parsePodRequirements(args.pod, snapshot.gpuClaim));

  const tally = new RejectionTally();
  tally.addNotFound(unknown.length);
  const { feasible, rejected: groups, rejectedCount } = profile.filterGrouped(state, nodes);
  for (const [status, group] of groups) tally.add(status, group.length);
  const short = failuresBytes(groups, unknown) > FAILURES_BUDGET_BYTES;
  if (short) ctx.warn('filter reply over budget: rejected nodes carry reason codes instead of messages', { pod, rejected: rejectedCount + unknown.length });

  const byNames = args.nodes.mode === 'NodeNames';
  const body = filterReply({
    keptNames: byNames ? feasible : null,
    keptItems: byNames ? null : raw === undefined ? [] : alongFeasible(nodes, feasible, raw),
    rejected: groups,
    unknown,
    short,
  });
  if (byNames) ctx.filterMemo.remember(args.pod, snapshot, { state, feasible });
  const candidates = nodes.length + unknown.length;
  return { status: 200, body, summary: tally.summary(pod, args.nodes.mode, candidates, feasible.length) };
}

/**
 * What the FailedNodes maps may take of the ALB's 1 MiB response cap (past
 * it, filterReply sends reason codes instead of messages): the
 * rest is for the kept nodes (NodeNames, or the Node objects, which came in a
 * request under the same cap) and JSON punctuation.
 */
export const FAILURES_BUDGET_BYTES = 512 * 1024;

/** Serialised size of the FailedNodes entries, near enough (node names are DNS names: ASCII). */
function failuresBytes(rejected: RejectionGroups, unknown: readonly string[]): number {
  let bytes = 0;
  for (const [status, nodes] of rejected) {
    bytes += nodes.length * (status.message.length + 6);
    for (const node of nodes) bytes += node.name.length;
  }
  for (const name of unknown) bytes += name.length + NOT_IN_CACHE_MESSAGE.length + 6;
  return bytes;
}

/** The items parallel to `nodes` whose node is feasible (feasible keeps the order of nodes, so one walk suffices). */
function alongFeasible<T>(nodes: readonly NodeInfo[], feasible: readonly NodeInfo[], items: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0, j = 0; i < nodes.length && j < feasible.length; i++) {
    if (nodes[i] === feasible[j]) {
      out.push(items[i] as T);
      j++;
    }
  }
  return out;
}

export async function prioritizeVerb(ctx: ExtenderContext, args: FilterArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  const profile = ctx.profile;
  const tally = new RejectionTally();
  let nodes: readonly NodeInfo[];
  let unknown: readonly string[];
  let state: CycleState;
  let feasible: readonly NodeInfo[];
  const cache = ctx.cache;
  const reused = args.nodes.mode === 'NodeNames' && cache !== undefined ? await ctx.filterMemo.take(args.pod, args.nodes.names, () => cache.snapshot()) : undefined;
  if (reused !== undefined) {
    // The nodes the filter kept, judged against the same snapshot for the same pod version (filter-memo.ts).
    ({ state, feasible } = reused);
    nodes = feasible;
    unknown = [];
  } else {
    const resolved = await ctx.candidates(args.nodes, warnFor(ctx, pod), podGpuClaimKeys(args.pod), snapshotFreshnessFor(args.pod));
    if (!resolved.ok) return unavailable(resolved.error);
    ({ nodes, unknown } = resolved.value);
    state = profile.startCycle(resolved.value.snapshot, parsePodRequirements(args.pod, resolved.value.snapshot.gpuClaim));
    tally.addNotFound(unknown.length);
    // Scores only mean something where the pod fits; the rest get 0.
    const outcome = profile.filter(state, nodes);
    feasible = outcome.feasible;
    tallied(tally, outcome.rejected);
  }
  const breakdown = profile.explainScores(state, feasible);
  const feasibleScores = toExtenderScores(breakdown.total, (i) => (feasible[i] as NodeInfo).name);
  const nodeScores = new Uint8Array(nodes.length);
  for (let i = 0, j = 0; i < nodes.length && j < feasible.length; i++) {
    if (nodes[i] === feasible[j]) {
      // kube-scheduler scales extender scores assuming 0..MaxExtenderPriority;
      // a Uint8Array already holds only integers ≥ 0, so the cap is the one
      // check left.
      const score = feasibleScores[j++] ?? 0;
      nodeScores[i] = score > MAX_EXTENDER_PRIORITY ? MAX_EXTENDER_PRIORITY : score;
    }
  }

  let body: HostPriorityList;
  if (args.nodes.mode === 'NodeNames' && unknown.length > 0) {
    const byName = new Map<string, number>();
    for (let i = 0; i < nodes.length; i++) byName.set((nodes[i] as NodeInfo).name, nodeScores[i] ?? 0);
    body = args.nodes.names.map((name) => ({ Host: name, Score: byName.get(name) ?? 0 }));
  } else {
    // Every input resolved: `nodes` is the input, in order.
    body = nodes.map((node, i) => ({ Host: node.name, Score: nodeScores[i] ?? 0 }));
  }
  const summary = tally.summary(pod, args.nodes.mode, nodes.length + unknown.length, feasible.length);
  const ranking = rankingOf(feasible, breakdown, feasibleScores);
  const tied = tiedAtTop(feasible, breakdown.total, feasibleScores);
  return {
    status: 200,
    body,
    summary: ranking === undefined ? summary : { ...summary, ranking },
    ...(tied.length > 1 ? { headers: { [TIE_HEADER]: tieHeaderValue(tied) } } : {}),
  };
}

/** Nodes with the best score when several share it, the one at the top level first. */
function tiedAtTop(feasible: readonly NodeInfo[], scores: Float64Array, levels: Uint8Array): string[] {
  let best = -Infinity;
  for (const s of scores) if (s > best) best = s;
  const tied: string[] = [];
  for (let i = 0; i < feasible.length; i++) {
    if (scores[i] !== best) continue;
    const name = (feasible[i] as NodeInfo).name;
    if (levels[i] === MAX_EXTENDER_PRIORITY) tied.unshift(name);
    else tied.push(name);
  }
  return tied;
}

/**
 * Our top two nodes for the decision log, each with its extender level
 * (what kube-scheduler adds, × weight × 10) and every plugin's score; a tie
 * when they had the same score (the top level then went to the first in the
 * stable node order, see toExtenderScores).
 */
function rankingOf(feasible: readonly NodeInfo[], breakdown: ScoreBreakdown, levels: Uint8Array): ExtenderRanking | undefined {
  // Our first choice is the node at the top level (unique, see toExtenderScores).
  const indices = choiceIndices(breakdown.total, Math.max(0, levels.indexOf(MAX_EXTENDER_PRIORITY)));
  const choice = explainIndices(feasible, breakdown, indices);
  if (choice === undefined) return undefined;
  // The levels by position: a search by name would compare names along thousands of nodes.
  const { best: at, second } = indices;
  const best = { ...choice.best, level: levels[at] ?? 0 };
  if (choice.runnerUp === undefined) return { best, tie: false };
  return { best, runnerUp: { ...choice.runnerUp, level: levels[second] ?? 0 }, tie: choice.tie };
}

/**
 * Keeps the preemption candidates on which the pod would pass our filters
 * once the scheduler's chosen victims are gone. Needs cluster state to know
 * the nodes; without cluster access every candidate is passed through
 * unchanged (and a warning logged), since nothing can be judged. Candidates
 * whose entry was invalid (see PreemptArgs.invalid) are never offered back.
 */
export async function preemptVerb(ctx: ExtenderContext, args: PreemptArgs): Promise<VerbResult> {
  const pod = podName(args.pod);
  // Keyed by node names from the request: without a prototype, a node named
  // "__proto__" is an entry like any other instead of replacing the prototype.
  const kept: Record<string, MetaVictims> = Object.create(null) as Record<string, MetaVictims>;
  const result: ExtenderPreemptionResult = { NodeNameToMetaVictims: kept };
  const meta = (victims: VictimSet): MetaVictims => ({
    Pods: victims.uids.map((UID) => ({ UID })),
    NumPDBViolations: victims.numPdbViolations,
  });
  const candidates = args.victims.size + args.invalid.size;
  if (args.invalid.size > 0) {
    ctx.warn('preempt: candidates with invalid victims left out', { pod, invalid: args.invalid.size, examples: [...args.invalid.values()].slice(0, 3) });
  }

  if (ctx.cache === undefined) {
    ctx.warn('preempt without cluster access: candidates passed through unchecked', { pod, candidates: args.victims.size });
    for (const [name, victims] of args.victims) kept[name] = meta(victims);
    return { status: 200, body: result, summary: new RejectionTally().summary(pod, 'MetaVictims', candidates, args.victims.size) };
  }
  let snapshot: Snapshot;
  try {
    // A pod that preempted before is judged on fresh state here too (snapshotFreshnessFor).
    snapshot = await ctx.cache.snapshot(snapshotFreshnessFor(args.pod));
  } catch (error) {
    return unavailable(`cluster cache unavailable: ${errorMessage(error)}`);
  }

  const state = ctx.profile.startCycle(snapshot, parsePodRequirements(args.pod, snapshot.gpuClaim));
  const tally = new RejectionTally();
  let keptCount = 0;
  for (const [name, victims] of args.victims) {
    const node = snapshot.getNode(name);
    if (node === undefined) {
      tally.addNotFound();
      continue;
    }
    const afterEviction = node.clone();
    for (const uid of victims.uids) afterEviction.removePod(uid);
    const status = ctx.profile.filterNode(state, afterEviction);
    if (!status.ok) {
      tally.add(status);
      continue;
    }
    kept[name] = meta(victims);
    keptCount++;
  }
  return { status: 200, body: result, summary: tally.summary(pod, 'MetaVictims', candidates, keptCount) };
}
