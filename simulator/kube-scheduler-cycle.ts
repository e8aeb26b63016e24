// One scheduling cycle of the deployed gpu-scheduler, in process: the
// profile's in-tree filters, then the extender's /filter on what is left,
// then the in-tree scores (× their weights) plus the extender's /prioritize
// level × its weight × 10, and kube-scheduler's pick of the highest total.
import { toExtenderScores } from '../lambdas/extender/extender-scores';
import { MAX_EXTENDER_PRIORITY } from '../lambdas/extender/wire-types';
import type { NodeInfo } from '../lambdas/scheduling/node-info';
import { parsePodRequirements } from '../lambdas/scheduling/pod-requirements';
import type { Profile } from '../lambdas/scheduling/profile';
import type { Snapshot } from '../lambdas/scheduling/snapshot';
import type { ClusterState, NodeState } from './in-tree/cluster';
import type { InTreeFilter, InTreeRejection } from './in-tree/filters';
import { filterNode, preFilter } from './in-tree/filters';
import type { SchedPod } from './in-tree/pod-spec';
import { IN_TREE_SCORE_WEIGHTS, inTreeScores } from './in-tree/scores';

/** kube-scheduler's MaxNodeScore / MaxExtenderPriority: what one extender level is worth before its weight. */
const EXTENDER_LEVEL_POINTS = 100 / MAX_EXTENDER_PRIORITY;

export interface SchedulerModel {
  readonly cluster: ClusterState;
  /** The extender's view: the library snapshot it builds from the same nodes and bound pods. */
  readonly snapshot: Snapshot;
  readonly extenderProfile: Profile;
  /** The extender's weight in the scheduler configuration (deployed: cdk/app-config). */
  readonly extenderWeight: number;
}

/** One node's total as kube-scheduler adds it up: each plugin's points (normalised score × weight) and the extender's. */
export interface NodeTotal {
  readonly node: string;
  readonly total: number;
  /** Points per in-tree score plugin that ran, and `extender`. */
  readonly points: Readonly<Record<string, number>>;
  /** The extender's own plugins' 0..100 scores on this node (what its level came from). */
  readonly extenderPlugins: Readonly<Record<string, number>>;
}

export interface CycleExplanation {
  readonly best: NodeTotal;
  readonly runnerUp?: NodeTotal;
  readonly margin: number;
}

export interface CycleResult {
  readonly node: string | undefined;
  /** Every node with the best total, the chosen one first: kube-scheduler picks one of them at random. */
  readonly tiedWith: readonly string[];
  /** Nodes kube-scheduler's own filters removed, per plugin and reason. */
  readonly inTreeRejected: ReadonlyMap<InTreeFilter, ReadonlyMap<string, number>>;
  readonly inTreeRejectedCount: number;
  /** The extender's verdicts on the nodes kube-scheduler's filters left: node, reason code and message. */
  readonly extenderRejected: readonly { readonly node: string; readonly code: string; readonly message: string }[];
  readonly feasible: number;
  readonly totalNodes: number;
  readonly explanation: CycleExplanation | undefined;
}

/** Nodes per plugin and reason, from nodes per (shared) rejection. */
function byPlugin(counts: ReadonlyMap<InTreeRejection, number>): Map<InTreeFilter, Map<string, number>> {
  const out = new Map<InTreeFilter, Map<string, number>>();
  for (const [{ plugin, reasons }, nodes] of counts) {
    let byReason = out.get(plugin);
    if (byReason === undefined) out.set(plugin, (byReason = new Map()));
    for (const reason of reasons) byReason.set(reason, (byReason.get(reason) ?? 0) + nodes);
  }
  return out;
}

export function scheduleOne(model: SchedulerModel, pod: SchedPod): CycleResult {
  const { cluster, snapshot, extenderProfile } = model;
  const filterCycle = preFilter(cluster, pod);
  const rejections = new Map<InTreeRejection, number>();
  const passed: NodeState[] = [];
  for (const node of cluster.nodes) {
    const rejection = filterNode(filterCycle, node);
    if (rejection === undefined) passed.push(node);
    else rejections.set(rejection, (rejections.get(rejection) ?? 0) + 1);
  }
  const base = { inTreeRejected: byPlugin(rejections), inTreeRejectedCount: cluster.nodes.length - passed.length, totalNodes: cluster.nodes.length };
  if (passed.length === 0) return { ...base, node: undefined, tiedWith: [], extenderRejected: [], feasible: 0, explanation: undefined };

  // The extender's /filter and /prioritize, as its handler runs them (lambdas/extender/verbs.ts).
  const state = extenderProfile.startCycle(snapshot, parsePodRequirements(pod.raw, snapshot.gpuClaim));
  const extenderNodes: NodeInfo[] = [];
  const extenderRejected: { node: string; code: string; message: string }[] = [];
  for (const node of passed) {
    const info = snapshot.getNode(node.node.name);
    if (info === undefined) extenderRejected.push({ node: node.node.name, code: 'NodeNotFound', message: 'node is not in the extender\'s cluster cache' });
    else extenderNodes.push(info);
  }
  const outcome = extenderProfile.filter(state, extenderNodes);
  for (const { node, status } of outcome.rejected) extenderRejected.push({ node: node.name, code: status.code, message: status.message });
  const feasibleInfos = outcome.feasible;
  const feasibleSet = new Set(feasibleInfos);
  const feasible = passed.filter((n) => feasibleSet.has(snapshot.getNode(n.node.name) as NodeInfo));
  const result = { ...base, extenderRejected, feasible: feasible.length };
  if (feasible.length === 0) return { ...result, node: undefined, tiedWith: [], explanation: undefined };
  // One node left: kube-scheduler takes it without scoring.
  if (feasible.length === 1) return { ...result, node: (feasible[0] as NodeState).node.name, tiedWith: [], explanation: undefined };

  const breakdown = extenderProfile.explainScores(state, feasibleInfos);
  const levels = toExtenderScores(breakdown.total, (i) => (feasibleInfos[i] as NodeInfo).name);
  const levelIndex = new Map(feasibleInfos.map((n, i) => [n, i]));
  const extenderIndex = feasible.map((node) => levelIndex.get(snapshot.getNode(node.node.name) as NodeInfo) as number);
  const inTree = [...inTreeScores(cluster, pod, feasible)].map(([plugin, scores]) => ({ plugin, scores, weight: IN_TREE_SCORE_WEIGHTS[plugin] }));
  const extenderPoints = (i: number): number => (levels[extenderIndex[i] as number] ?? 0) * model.extenderWeight * EXTENDER_LEVEL_POINTS;
  const totals = new Float64Array(feasible.length);
  for (let i = 0; i < feasible.length; i++) {
    let total = extenderPoints(i);
    for (const part of inTree) total += (part.scores[i] as number) * part.weight;
    totals[i] = total;
  }
  let best = 0;
  for (let i = 1; i < totals.length; i++) if ((totals[i] as number) > (totals[best] as number)) best = i;
  let second = -1;
  for (let i = 0; i < totals.length; i++) if (i !== best && (second < 0 || (totals[i] as number) > (totals[second] as number))) second = i;
  const tiedWith: string[] = [];
  for (let i = 0; i < totals.length; i++) if (totals[i] === totals[best]) tiedWith.push((feasible[i] as NodeState).node.name);
  // Only the two nodes an explanation shows get their parts spelled out.
  const nodeTotal = (i: number): NodeTotal => {
    const points: Record<string, number> = {};
    for (const part of inTree) points[part.plugin] = (part.scores[i] as number) * part.weight;
    points.extender = extenderPoints(i);
    const extenderPlugins: Record<string, number> = {};
    for (const part of breakdown.plugins) extenderPlugins[part.plugin] = Math.round((part.scores[extenderIndex[i] as number] ?? 0) * 100) / 100;
    return { node: (feasible[i] as NodeState).node.name, total: totals[i] as number, points, extenderPlugins };
  };
  const bestTotal = nodeTotal(best);
  const runnerUp = second < 0 ? undefined : nodeTotal(second);
  return {
    ...result,
    node: bestTotal.node,
    tiedWith: tiedWith.length > 1 ? tiedWith : [],
    explanation: { best: bestTotal, ...(runnerUp === undefined ? {} : { runnerUp }), margin: runnerUp === undefined ? 0 : bestTotal.total - runnerUp.total },
  };
}

/** kube-scheduler's FitError text: "0/N nodes are available: " and each reason's count, sorted as strings. */
export function failedSchedulingMessage(result: CycleResult): string {
  if (result.totalNodes === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  for (const reasons of result.inTreeRejected.values()) for (const [reason, n] of reasons) counts.set(reason, (counts.get(reason) ?? 0) + n);
  for (const { message } of result.extenderRejected) counts.set(message, (counts.get(message) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${result.totalNodes} nodes are available: ${parts.join(', ')}.`;
}
