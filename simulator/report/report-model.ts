// What the what-if report shows, computed from the input and the
// simulator's result: the nodes grouped by GPU model, zone and pool, each
// node's GPU slots before and after the placements, every pending pod with
// where it went or why it could not go, and the outcome before and after.
import type { ClusterOutcome } from '../../lambdas/scheduling/cluster-outcome';
import { clusterOutcome } from '../../lambdas/scheduling/cluster-outcome';
import { createStrandedMeasure } from '../../lambdas/scheduling/fragmentation/fragmentation-model';
import { GPU_RESOURCE, POD_ANNOTATION } from '../../lambdas/scheduling/keys';
import type { NodeInfo } from '../../lambdas/scheduling/node-info';
import { podInfoFromKubernetes } from '../../lambdas/scheduling/pod-info';
import type { Snapshot } from '../../lambdas/scheduling/snapshot';
import { snapshotFromKubernetes } from '../../lambdas/scheduling/snapshot';
import type { SchedPod } from '../in-tree/pod-spec';
import { parseSchedPod } from '../in-tree/pod-spec';
import type { PlacedPod, SimulationResult, UnschedulablePod } from '../simulate';
import { GPU_SCHEDULER, planDump } from '../simulate';
import type { NodeSlots } from './gpu-slots';
import { nodeSlots } from './gpu-slots';

/** Labels that name a node's pool: Karpenter's NodePool, then an EKS managed node group. */
export const POOL_LABELS = ['karpenter.sh/nodepool', 'eks.amazonaws.com/nodegroup'] as const;
const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

export interface ReportNode {
  readonly name: string;
  readonly instanceType: string | undefined;
  readonly before: NodeSlots;
  readonly after: NodeSlots;
  /** Pods placed on it by this run. */
  readonly placedHere: readonly string[];
  /** Why the node's GPUs are not counted (invalid GPU data), when they are not. */
  readonly invalid: string | undefined;
}

export interface NodeGroup {
  /** Canonical GPU model; '' for nodes without GPUs. */
  readonly model: string;
  readonly zone: string;
  readonly pool: string;
  readonly nodes: readonly ReportNode[];
}

export type PendingState = 'placed' | 'unschedulable' | 'undecided' | 'gated' | 'other-scheduler';

export interface PendingPod {
  readonly pod: string;
  readonly state: PendingState;
  readonly schedulerName: string;
  readonly gpus: number;
  /** The pod's gpu.nvidia.com/model and memory annotations, when it has them. */
  readonly asks: string;
  readonly placed?: PlacedPod;
  readonly unschedulable?: UnschedulablePod;
}

export interface WhatIfReport {
  readonly result: SimulationResult;
  readonly groups: readonly NodeGroup[];
  readonly nodeCount: number;
  readonly pending: readonly PendingPod[];
  readonly before: ClusterOutcome;
  readonly after: ClusterOutcome;
}

/** Binds the run's placements into a snapshot of the input, in order (as the simulator binds them); returns their uids. */
function bindPlacements(snapshot: Snapshot, pending: readonly SchedPod[], placed: readonly PlacedPod[]): Set<string> {
  const byKey = new Map(pending.map((pod) => [pod.key, pod]));
  const uids = new Set<string>();
  for (const placement of placed) {
    const raw = byKey.get(placement.pod)?.raw as { spec?: Record<string, unknown> } | undefined;
    if (raw === undefined) continue;
    const info = podInfoFromKubernetes({ ...raw, spec: { ...raw.spec, nodeName: placement.node } });
    if (info === undefined || snapshot.getNode(placement.node) === undefined) continue;
    snapshot.bind(info);
    uids.add(info.uid);
  }
  return uids;
}

function groupKey(node: NodeInfo): Pick<NodeGroup, 'model' | 'zone' | 'pool'> {
  const pool = POOL_LABELS.map((label) => node.labels[label]).find((value) => value !== undefined && value !== '');
  return { model: node.gpuCount > 0 ? node.gpuModelName || 'unknown model' : '', zone: node.zone ?? 'no zone label', pool: pool ?? 'no pool label' };
}

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function asksOf(pod: SchedPod): string {
  const annotations = ((pod.raw as { metadata?: { annotations?: Record<string, unknown> } }).metadata?.annotations ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  for (const [name, key] of [['model', POD_ANNOTATION.gpuModel], ['memory', POD_ANNOTATION.gpuMemory]] as const) {
    const value = annotations[key];
    if (typeof value === 'string' && value !== '') parts.push(`${name} ${value}`);
  }
  return parts.join(', ');
}

export function buildWhatIfReport(nodes: readonly unknown[], pods: readonly unknown[], result: SimulationResult): WhatIfReport {
  const plan = planDump(nodes, pods);
  const bound = plan.bound.map((pod) => pod.raw);
  const beforeSnapshot = snapshotFromKubernetes(nodes, bound);
  const afterSnapshot = snapshotFromKubernetes(nodes, bound);
  const placedUids = bindPlacements(afterSnapshot, plan.pending, result.placed);
  const before = clusterOutcome(beforeSnapshot);
  const after = clusterOutcome(afterSnapshot);
  const strandedBefore = createStrandedMeasure(before.shapes);
  const strandedAfter = createStrandedMeasure(after.shapes);
  const placedOn = new Map<string, string[]>();
  for (const p of result.placed) placedOn.set(p.node, [...(placedOn.get(p.node) ?? []), p.pod]);

  const groups = new Map<string, { key: Pick<NodeGroup, 'model' | 'zone' | 'pool'>; nodes: ReportNode[] }>();
  for (const node of afterSnapshot.nodes) {
    const was = beforeSnapshot.getNode(node.name) as NodeInfo;
    const counted = node.gpuCount > 0 && node.invalid === undefined;
    const key = groupKey(node);
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, nodes: [] });
    groups.get(id)?.nodes.push({
      name: node.name,
      instanceType: node.labels[INSTANCE_TYPE_LABEL],
      before: nodeSlots(was, new Set(), counted ? strandedBefore(was) : 0),
      after: nodeSlots(node, placedUids, counted ? strandedAfter(node) : 0),
      placedHere: placedOn.get(node.name) ?? [],
      invalid: node.invalid,
    });
  }
  const sortedGroups = [...groups.values()]
    // GPU groups first (by model, zone, pool), nodes without GPUs last.
    .sort((a, b) => Number(a.key.model === '') - Number(b.key.model === '') || byText(a.key.model, b.key.model) || byText(a.key.zone, b.key.zone) || byText(a.key.pool, b.key.pool))
    .map(({ key, nodes: members }) => ({ ...key, nodes: members }));

  return { result, groups: sortedGroups, nodeCount: afterSnapshot.nodes.length, pending: pendingPods(pods, plan.pending, result), before, after };
}

/** Every pending pod of the input: the gpu-scheduler's in queue order with what happened, then the skipped ones. */
function pendingPods(pods: readonly unknown[], queue: readonly SchedPod[], result: SimulationResult): PendingPod[] {
  const placed = new Map(result.placed.map((p) => [p.pod, p]));
  const failed = new Map(result.unschedulable.map((u) => [u.pod, u]));
  const entry = (pod: SchedPod, state: PendingState): PendingPod => ({ pod: pod.key, state, schedulerName: pod.schedulerName, gpus: pod.requests.get(GPU_RESOURCE) ?? 0, asks: asksOf(pod) });
  const decided = queue.map((pod): PendingPod => {
    const p = placed.get(pod.key);
    if (p !== undefined) return { ...entry(pod, 'placed'), placed: p };
    const u = failed.get(pod.key);
    return u === undefined ? entry(pod, 'undecided') : { ...entry(pod, 'unschedulable'), unschedulable: u };
  });
  const skipped = pods
    .map(parseSchedPod)
    .filter((pod) => !pod.finished && pod.nodeName === undefined && (pod.schedulerName !== GPU_SCHEDULER || pod.schedulingGates))
    .map((pod) => entry(pod, pod.schedulerName === GPU_SCHEDULER ? 'gated' : 'other-scheduler'));
  return [...decided, ...skipped];
}
