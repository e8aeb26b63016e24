// The filters of the deployed gpu-scheduler profile that a dump can
// exercise, in kube-scheduler's order (its default plugin list): a node's
// first failing plugin rejects it, with kube-scheduler's own reason texts.
import type { ClusterState, NodeState } from './cluster';
import type { AffinityFilterState } from './inter-pod-affinity';
import { AFFINITY_REASON, affinityFilter, affinityPreFilter } from './inter-pod-affinity';
import { requiredNodeAffinityMatches } from './node-affinity';
import type { HostPort, SchedPod } from './pod-spec';
import type { SpreadFilterState } from './topology-spread';
import { SPREAD_REASON, spreadFilter, spreadPreFilter } from './topology-spread';
import { UNSCHEDULABLE_TAINT, toleratedByAny, untoleratedTaint } from './taints';

export const IN_TREE_FILTERS = ['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity'] as const;
export type InTreeFilter = (typeof IN_TREE_FILTERS)[number];

/** Each in-tree plugin's reason texts, to attribute kube-scheduler's FailedScheduling reasons to a plugin. */
const REASON_TEXTS: Readonly<Record<string, InTreeFilter>> = {
  'node(s) were unschedulable': 'NodeUnschedulable',
  "node(s) didn't match the requested node name": 'NodeName',
  'node(s) had untolerated taint(s)': 'TaintToleration',
  "node(s) didn't match Pod's node affinity/selector": 'NodeAffinity',
  "node(s) didn't have free ports for the requested pod ports": 'NodePorts',
  'Too many pods': 'NodeResourcesFit',
  [SPREAD_REASON.missingLabel]: 'PodTopologySpread',
  [SPREAD_REASON.skew]: 'PodTopologySpread',
  [AFFINITY_REASON.affinity]: 'InterPodAffinity',
  [AFFINITY_REASON.antiAffinity]: 'InterPodAffinity',
  [AFFINITY_REASON.existingAntiAffinity]: 'InterPodAffinity',
};

/** The plugin that writes a kube-scheduler reason; other in-tree plugins (volumes, DRA) are named as such. */
export function pluginOfReason(reason: string): string {
  return REASON_TEXTS[reason] ?? (reason.startsWith('Insufficient ') ? 'NodeResourcesFit' : 'another in-tree plugin');
}

export interface InTreeRejection {
  readonly plugin: InTreeFilter;
  /** kube-scheduler's reasons; NodeResourcesFit may give several (one per short resource). */
  readonly reasons: readonly string[];
}

/** What the filters precompute once per pod (PreFilter). */
export interface InTreeFilterCycle {
  readonly pod: SchedPod;
  readonly affinity: AffinityFilterState | undefined;
  readonly spread: SpreadFilterState | undefined;
}

export function preFilter(cluster: ClusterState, pod: SchedPod): InTreeFilterCycle {
  return { pod, affinity: affinityPreFilter(cluster, pod), spread: spreadPreFilter(cluster, pod) };
}

const CORE_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);

/** NodeResourcesFit's fitsRequest: every resource the pod is short of on this node. */
export function insufficientResources(pod: SchedPod, node: NodeState): readonly string[] {
  if (fitsResources(pod, node)) return NO_REASONS;
  const reasons: string[] = [];
  const allocatable = node.node.allocatable;
  if (node.pods.length + 1 > (allocatable.get('pods') ?? 0)) reasons.push('Too many pods');
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const want = pod.requests.get(name) ?? 0;
    if (want > 0 && want > (allocatable.get(name) ?? 0) - (node.requested.get(name) ?? 0)) reasons.push(`Insufficient ${name}`);
  }
  for (const [name, want] of pod.requests) {
    if (CORE_RESOURCES.has(name) || want === 0) continue;
    if (want > (allocatable.get(name) ?? 0) - (node.requested.get(name) ?? 0)) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

const NO_REASONS: readonly string[] = Object.freeze([]);

/** insufficientResources without building its list: the per-node hot path, where most nodes fit. */
function fitsResources(pod: SchedPod, node: NodeState): boolean {
  const allocatable = node.node.allocatable;
  if (node.pods.length + 1 > (allocatable.get('pods') ?? 0)) return false;
  for (const [name, want] of pod.requests) {
    if (name === 'pods' || want === 0) continue;
    if (want > (allocatable.get(name) ?? 0) - (node.requested.get(name) ?? 0)) return false;
  }
  return true;
}

/** HostPortInfo.CheckConflict: 0.0.0.0 on either side conflicts with any address. */
function portConflicts(want: HostPort, used: readonly HostPort[]): boolean {
  return used.some((u) => u.port === want.port && u.protocol === want.protocol && (want.ip === '0.0.0.0' || u.ip === '0.0.0.0' || u.ip === want.ip));
}

/** One shared rejection per plugin and reasons, so a cycle counts rejected nodes by identity instead of by text. */
const REJECTIONS = new Map<string, InTreeRejection>();

function rejection(plugin: InTreeFilter, ...reasons: string[]): InTreeRejection {
  const key = `${plugin}\u0000${reasons.join('\u0000')}`;
  let found = REJECTIONS.get(key);
  if (found === undefined) REJECTIONS.set(key, (found = Object.freeze({ plugin, reasons: Object.freeze(reasons) })));
  return found;
}

export function filterNode(cycle: InTreeFilterCycle, node: NodeState): InTreeRejection | undefined {
  const { pod } = cycle;
  const spec = node.node;
  if (spec.unschedulable && !toleratedByAny(pod.tolerations, UNSCHEDULABLE_TAINT)) return rejection('NodeUnschedulable', 'node(s) were unschedulable');
  if (pod.nodeName !== undefined && pod.nodeName !== spec.name) return rejection('NodeName', "node(s) didn't match the requested node name");
  if (untoleratedTaint(spec.taints, pod.tolerations) !== undefined) return rejection('TaintToleration', 'node(s) had untolerated taint(s)');
  if (!requiredNodeAffinityMatches(pod, spec)) return rejection('NodeAffinity', "node(s) didn't match Pod's node affinity/selector");
  if (pod.hostPorts.some((p) => portConflicts(p, node.ports))) return rejection('NodePorts', "node(s) didn't have free ports for the requested pod ports");
  const short = insufficientResources(pod, node);
  if (short.length > 0) return rejection('NodeResourcesFit', ...short);
  const spread = cycle.spread === undefined ? undefined : spreadFilter(cycle.spread, pod, node);
  if (spread !== undefined) return rejection('PodTopologySpread', spread);
  const affinity = cycle.affinity === undefined ? undefined : affinityFilter(cycle.affinity, node);
  if (affinity !== undefined) return rejection('InterPodAffinity', affinity);
  return undefined;
}
