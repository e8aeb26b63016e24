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
import type { InTreeFilter } from './in-tree/filters';
import { filterNode, preFilter } from './in-tree/filters';
import type { SchedPod } from './in-tree/pod-spec';
import type { InTreeScore } from './in-tree/scores';
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

function countReason(map: Map<InTreeFilter, Map<string, number>>, plugin: InTreeFilter, reason: string): void {
  let reasons = map.get(plugin);
  if (reasons === undefined) map.set(plugin, (reasons = new Map()));
  reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
}

export function scheduleOne(model: SchedulerModel, pod: SchedPod): CycleResult {
  const { cluster, snapshot, extenderProfile } = model;
  const filterCycle = preFilter(cluster, pod);
  const inTreeRejected = new Map<InTreeFilter, Map<string, number>>();
  const passed: NodeState[] = [];
  let inTreeRejectedCount = 0;
  for (const node of cluster.nodes) {
    const rejection = filterNode(filterCycle, node);
    if (rejection === undefined) {
      passed.push(node);
      continue;
    }
    inTreeRejectedCount++;
    for (const reason of rejection.reasons) countReason(inTreeRejected, rejection.plugin, reason);
  }
  const base = { inTreeRejected, inTreeRejectedCount, totalNodes: cluster.nodes.length };
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
  const feasibleNames = new Set(feasibleInfos.map((n) => n.name));
  const feasible = passed.filter((n) => feasibleNames.has(n.node.name));
  const result = { ...base, extenderRejected, feasible: feasible.length };
  if (feasible.length === 0) return { ...result, node: undefined, tiedWith: [], explanation: undefined };
  // One node left: kube-scheduler takes it without scoring.
  if (feasible.length === 1) return { ...result, node: (feasible[0] as NodeState).node.name, tiedWith: [], explanation: undefined };

  const breakdown = extenderProfile.explainScores(state, feasibleInfos);
  const levels = toExtenderScores(breakdown.total, (i) => (feasibleInfos[i] as NodeInfo).name);
  const levelByName = new Map(feasibleInfos.map((n, i) => [n.name, i]));
  const inTree = inTreeScores(cluster, pod, feasible);
  const totals: NodeTotal[] = feasible.map((node, i) => {
    const points: Record<string, number> = {};
    let total = 0;
    for (const [plugin, scores] of inTree) {
      const value = (scores[i] as number) * IN_TREE_SCORE_WEIGHTS[plugin as InTreeScore];
      points[plugin] = value;
      total += value;
    }
    const j = levelByName.get(node.node.name) as number;
    const extender = (levels[j] ?? 0) * model.extenderWeight * EXTENDER_LEVEL_POINTS;
    points.extender = extender;
    total += extender;
    const extenderPlugins: Record<string, number> = {};
    for (const part of breakdown.plugins) extenderPlugins[part.plugin] = Math.round((part.scores[j] ?? 0) * 100) / 100;
    return { node: node.node.name, total, points, extenderPlugins };
  });
  let best = 0;
  for (let i = 1; i < totals.length; i++) if ((totals[i] as NodeTotal).total > (totals[best] as NodeTotal).total) best = i;
  const bestTotal = totals[best] as NodeTotal;
  const tiedWith = totals.filter((t) => t.total === bestTotal.total).map((t) => t.node);
  let second = -1;
  for (let i = 0; i < totals.length; i++) if (i !== best && (second < 0 || (totals[i] as NodeTotal).total > (totals[second] as NodeTotal).total)) second = i;
  const runnerUp = second < 0 ? undefined : totals[second];
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
