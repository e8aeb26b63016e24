import { APP_CONFIG_DEFAULTS } from '../cdk/app-config/app-config-defaults';
import type { ExtenderRanking } from '../lambdas/extender/decision';
import type { ClusterOutcome } from '../lambdas/scheduling/cluster-outcome';
import { clusterOutcome } from '../lambdas/scheduling/cluster-outcome';
import { podInfoFromKubernetes } from '../lambdas/scheduling/pod-info';
import type { ProfileOptions } from '../lambdas/scheduling/profiles';
import { createExtenderProfile } from '../lambdas/scheduling/profiles';
import type { Snapshot } from '../lambdas/scheduling/snapshot';
import { snapshotFromKubernetes } from '../lambdas/scheduling/snapshot';
import { snapshotShapes } from '../lambdas/scheduling/fragmentation/snapshot-shapes';
import { ClusterState, parseSchedNode } from './in-tree/cluster';
import type { SchedPod } from './in-tree/pod-spec';
import { parseSchedPod } from './in-tree/pod-spec';
import type { CycleExplanation, CycleResult } from './kube-scheduler-cycle';
import { failedSchedulingMessage, scheduleOne } from './kube-scheduler-cycle';
import { nodesUsage, type NodeUsage } from './node-usage';
import { requeuedByBind } from './requeue';

export type { NodeUsage } from './node-usage';

/** The scheduler the simulator places pods for: the deployed second scheduler's name. */
export const GPU_SCHEDULER = 'gpu-scheduler';

export interface PlacedPod {
  readonly pod: string;
  readonly node: string;
  /** kube-scheduler's total on the chosen node (in-tree points + extender points); undefined when it was the only node left. */
  readonly score: number | undefined;
  /** GPU device indexes the pod got on the node (fast path only). */
  readonly devices: readonly number[];
  /** Other nodes with the same best total: kube-scheduler picks one of them at random. */
  readonly tiedWith: readonly string[];
  /** With --explain (fast path): the chosen node's and the runner-up's points per plugin. */
  readonly explanation?: CycleExplanation;
  /** With --explain (exact path): the extender's own ranking in its last /prioritize for the pod. */
  readonly extenderRanking?: ExtenderRanking;
  /** With --explain (fast path): the nodes the extender refused for the pod, per reason (e.g. a Capacity Block that ends too soon). */
  readonly refusedByExtender?: readonly ExtenderRejections[];
}

export interface FilterCount {
  readonly plugin: string;
  readonly reason: string;
  readonly nodes: number;
}

export interface ExtenderRejections {
  /** The extender's reason code (lambdas/scheduling/reasons.ts). */
  readonly code: string;
  readonly nodes: number;
  /** One of its messages, e.g. "Not enough GPUs: requested 2, free 1". */
  readonly example: string;
}

export interface UnschedulablePod {
  readonly pod: string;
  /**
   * kube-scheduler's FailedScheduling message at the pod's own turn in queue
   * order, on the cluster the earlier pods left (fast path: the same text
   * built from the same reasons). The filter and extender counts below are
   * this attempt's.
   */
  readonly message: string;
  /**
   * The message of its last attempt, when kube-scheduler tried it again
   * after a later bind (a peer its affinity or spread waits for) and that
   * attempt failed for other reasons; the pod's events show both.
   */
  readonly lastMessage?: string;
  /** Nodes kube-scheduler's own filters removed, per plugin and reason, before the extender saw the rest. */
  readonly filteredByScheduler: readonly FilterCount[];
  /** The extender's verdicts on the nodes kube-scheduler's filters left, per reason code. */
  readonly rejectedByExtender: readonly ExtenderRejections[];
}

export interface SkippedPods {
  /** Pending pods for another scheduler, by scheduler name. */
  readonly otherScheduler: Readonly<Record<string, number>>;
  /** Pending gpu-scheduler pods held by schedulingGates: kube-scheduler does not try them. */
  readonly gated: number;
  /** Bound pods whose node is not in the node list: they use nothing here. */
  readonly boundToUnknownNode: number;
}

export interface SimulationResult {
  readonly path: 'fast' | 'exact';
  readonly placed: readonly PlacedPod[];
  readonly unschedulable: readonly UnschedulablePod[];
  /** Pods already bound in the input (spec.nodeName set, not finished), of every scheduler: existing load. */
  readonly alreadyBound: number;
  readonly skipped: SkippedPods;
  readonly nodes: readonly NodeUsage[];
  /** GPUs after the placements: allocatable, allocated, idle, stranded. */
  readonly gpus: ClusterOutcome;
  /** What this path does not model, for this input. */
  readonly notModelled: readonly string[];
  /** Exact path: what went wrong on the way (an extender call that failed leaves that pod to kube-scheduler's own scores). */
  readonly warnings?: readonly string[];
  /** Fast path: nodes kube-scheduler's filters removed over every cycle of the run, placed pods' included, per plugin. */
  readonly removedByScheduler?: Readonly<Record<string, number>>;
}

export interface SimulateOptions {
  /** Keep each placement's per-plugin points and runner-up (--explain). */
  readonly explain?: boolean;
  /** The extender's weight in the scheduler configuration; default: the deployed one. */
  readonly extenderWeight?: number;
  /**
   * Which of several nodes with the best total a pod gets (kube-scheduler
   * picks at random); default the first in the input. The differential test
   * follows the real scheduler's pick here so later pods see the same cluster.
   */
  readonly breakTie?: (pod: string, tied: readonly string[]) => string;
}

/** What the input holds, sorted the way both paths need it. */
export interface DumpPlan {
  readonly nodes: readonly unknown[];
  /** Bound, unfinished pods (every scheduler), in input order. */
  readonly bound: readonly SchedPod[];
  /** gpu-scheduler pods to place, in kube-scheduler's queue order (priority, then input order). */
  readonly pending: readonly SchedPod[];
  readonly skipped: SkippedPods;
}

export function planDump(nodes: readonly unknown[], pods: readonly unknown[]): DumpPlan {
  const parsed = pods.map(parseSchedPod);
  const nodeNames = new Set(nodes.map((n) => parseSchedNode(n).name));
  const otherScheduler: Record<string, number> = {};
  let gated = 0;
  const bound: SchedPod[] = [];
  const pending: SchedPod[] = [];
  for (const pod of parsed) {
    if (pod.finished) continue;
    if (pod.nodeName !== undefined) bound.push(pod);
    else if (pod.schedulerName !== GPU_SCHEDULER) otherScheduler[pod.schedulerName] = (otherScheduler[pod.schedulerName] ?? 0) + 1;
    else if (pod.schedulingGates) gated++;
    else pending.push(pod);
  }
  // PrioritySort: higher priority first; equal priorities keep their order (kube-scheduler: time added to the queue).
  const queue = pending.map((pod, i) => ({ pod, i })).sort((a, b) => b.pod.priority - a.pod.priority || a.i - b.i).map((e) => e.pod);
  const boundToUnknownNode = bound.filter((p) => !nodeNames.has(p.nodeName as string)).length;
  return { nodes, bound, pending: queue, skipped: { otherScheduler, gated, boundToUnknownNode } };
}

/** What the fast path leaves out, always, and for what this input contains. */
export function fastPathNotModelled(plan: DumpPlan): string[] {
  const notes = [
    'preemption: a pod that fits nowhere is reported unschedulable; kube-scheduler may evict lower-priority pods for it',
    'percentageOfNodesToScore: from 100 nodes up kube-scheduler stops filtering once it has found enough feasible nodes (10 % of 5,000) and scores only those; here every feasible node is scored',
    'ties: kube-scheduler picks at random among equal totals; here the first node in the input wins and the placement is marked as a tie',
    'namespaces: the dump has none, so a namespaceSelector sees only the kubernetes.io/metadata.name label',
  ];
  const all = [...plan.bound, ...plan.pending];
  const volumes = plan.pending.filter((p) => p.volumeClaims).length;
  if (volumes > 0) notes.push(`volumes (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits): ${volumes} pending pod(s) use PersistentVolumeClaims, placed as if they had none`);
  const claims = all.filter((p) => p.resourceClaims).length;
  if (claims > 0) notes.push(`DynamicResources: ${claims} pod(s) have ResourceClaims; claims are not allocated (GPU claims count as the extender counts them)`);
  return notes;
}

/** A pod that fit nowhere: its first cycle in queue order, its latest, and how many pods were placed before the latest. */
interface Failure {
  readonly atItsTurn: CycleResult;
  readonly last: CycleResult;
  readonly placedBefore: number;
}

function filterCounts(result: CycleResult): FilterCount[] {
  const out: FilterCount[] = [];
  for (const [plugin, reasons] of result.inTreeRejected) for (const [reason, nodes] of reasons) out.push({ plugin, reason, nodes });
  return out;
}

function groupByCode(rejected: readonly { code: string; message: string }[]): ExtenderRejections[] {
  const byCode = new Map<string, { code: string; nodes: number; example: string }>();
  for (const { code, message } of rejected) {
    const group = byCode.get(code);
    if (group === undefined) byCode.set(code, { code, nodes: 1, example: message });
    else group.nodes++;
  }
  return [...byCode.values()];
}

/** Binds a pod in both views: the in-tree cluster and the extender's snapshot (as its next cache refresh would see it). */
function bindBoth(cluster: ClusterState, snapshot: Snapshot, pod: SchedPod, nodeName: string): readonly number[] {
  cluster.bind(pod, nodeName);
  const raw = pod.raw as { spec?: Record<string, unknown> };
  const info = podInfoFromKubernetes({ ...raw, spec: { ...raw.spec, nodeName } });
  return info === undefined || snapshot.getNode(nodeName) === undefined ? [] : snapshot.bind(info);
}

/**
 * What-if placement on the fast path: the gpu-scheduler's pending pods are
 * placed one at a time in queue order, each through the deployed profile's
 * in-tree filters and scores and the extender's verbs, and later pods see
 * the earlier placements. A pod that fits nowhere is tried again after a
 * pass that bound a pod it may need (kube-scheduler's queueing hints: a
 * peer its affinity or spread constraint waits for), until a pass places
 * nothing.
 */
export function simulate(nodes: readonly unknown[], pods: readonly unknown[], profileOptions: ProfileOptions = {}, options: SimulateOptions = {}): SimulationResult {
  const plan = planDump(nodes, pods);
  const cluster = new ClusterState(nodes.map(parseSchedNode));
  for (const pod of plan.bound) cluster.bind(pod, pod.nodeName as string);
  const snapshot = snapshotFromKubernetes(nodes, plan.bound.map((p) => p.raw));
  const model = {
    cluster,
    snapshot,
    extenderProfile: createExtenderProfile(profileOptions),
    extenderWeight: options.extenderWeight ?? APP_CONFIG_DEFAULTS.scheduler.extender.weight,
  };
  // The extender derives the workload's typical shapes afresh from every new
  // cluster view (each bind, at the cache TTL --exact uses), while a profile
  // kept across binds refreshes them only after 5 % more pods: start a new
  // profile whenever a bind changes the shapes, so both score alike.
  let shapes = JSON.stringify(snapshotShapes(snapshot));
  const followShapes = (): void => {
    const now = JSON.stringify(snapshotShapes(snapshot));
    if (now === shapes) return;
    shapes = now;
    model.extenderProfile = createExtenderProfile(profileOptions);
  };
  const placed: PlacedPod[] = [];
  const placedPods: SchedPod[] = [];
  const failures = new Map<SchedPod, Failure>();
  const removedByScheduler: Record<string, number> = {};
  let waiting = plan.pending;
  while (waiting.length > 0) {
    const placedBefore = placed.length;
    for (const pod of waiting) {
      const result = scheduleOne(model, pod);
      for (const [plugin, reasons] of result.inTreeRejected) {
        // A node short of several resources counts once.
        const nodes = plugin === 'NodeResourcesFit' ? Math.max(...reasons.values()) : [...reasons.values()].reduce((a, b) => a + b, 0);
        removedByScheduler[plugin] = (removedByScheduler[plugin] ?? 0) + nodes;
      }
      if (result.node === undefined) {
        failures.set(pod, { atItsTurn: failures.get(pod)?.atItsTurn ?? result, last: result, placedBefore: placed.length });
        continue;
      }
      failures.delete(pod);
      const tied = result.tiedWith;
      const picked = tied.length > 1 && options.breakTie !== undefined ? options.breakTie(pod.key, tied) : result.node;
      const node = tied.length > 1 && tied.includes(picked) ? picked : result.node;
      const devices = bindBoth(cluster, snapshot, pod, node);
      followShapes();
      placedPods.push(pod);
      placed.push({
        pod: pod.key,
        node,
        score: result.explanation?.best.total,
        devices: [...devices],
        tiedWith: tied.filter((n) => n !== node),
        ...(options.explain === true && result.explanation !== undefined ? { explanation: result.explanation } : {}),
        ...(options.explain === true && result.extenderRejected.length > 0 ? { refusedByExtender: groupByCode(result.extenderRejected) } : {}),
      });
    }
    if (placed.length === placedBefore) break;
    // Only binds after a pod's attempt are news to it; the earlier ones were in its cycle's snapshot.
    waiting = [...failures]
      .filter(([pod, failure]) => placedPods.slice(failure.placedBefore).some((bound) => requeuedByBind(pod, failure.last, bound)))
      .map(([pod]) => pod);
  }
  const unschedulable = [...failures].map(([pod, { atItsTurn, last }]) => {
    const message = failedSchedulingMessage(atItsTurn);
    const lastMessage = failedSchedulingMessage(last);
    return {
      pod: pod.key,
      message,
      ...(lastMessage === message ? {} : { lastMessage }),
      filteredByScheduler: filterCounts(atItsTurn),
      rejectedByExtender: groupByCode(atItsTurn.extenderRejected),
    };
  });
  return {
    path: 'fast',
    placed,
    unschedulable,
    alreadyBound: plan.bound.length,
    skipped: plan.skipped,
    nodes: nodesUsage(snapshot),
    gpus: clusterOutcome(snapshot),
    notModelled: fastPathNotModelled(plan),
    removedByScheduler,
  };
}
