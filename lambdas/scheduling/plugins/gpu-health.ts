import type { CycleState, FilterPlugin, FilterRejection, FilterStatus, PreScoreResult, ScorePlugin } from '../framework';
import { MAX_NODE_SCORE, PASS, SKIP, reject } from '../framework';
import type { HealthCondition, NodeHealth } from '../node-health';
import { HEALTHY, describeCondition, isDegradedFor } from '../node-health';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

export const GPU_HEALTH_NAME = 'GpuHealth' as const;

/** A pod of a distributed job: it names its peers or its job's size, so a node without working networking cannot serve it. */
export function isDistributed(pod: PodRequirements): boolean {
  return pod.peerSelector !== undefined || (pod.groupSize !== undefined && pod.groupSize > 1);
}

/** One rejection per failing node's health, however many pods ask: a node's health object lives as long as its mirror. */
const failingRejections = new WeakMap<HealthCondition, FilterRejection>();
const networkRejections = new WeakMap<HealthCondition, FilterRejection>();

function rejectionFor(cache: WeakMap<HealthCondition, FilterRejection>, condition: HealthCondition, suffix: string): FilterRejection {
  let status = cache.get(condition);
  if (status === undefined) {
    // Unresolvable: evicting pods does not mend a GPU; the condition changing (repair, reboot) does.
    status = reject('NodeUnhealthy', `${describeCondition(condition)}${suffix}`, true);
    cache.set(condition, status);
  }
  return status;
}

/**
 * The pod asks for GPUs, or names ResourceClaims the snapshot does not hold
 * yet: those may claim GPUs, and a failing node is refused for them too
 * rather than let a DRA pod through in the moments before its claim is seen.
 */
function mayUseGpus(pod: PodRequirements): boolean {
  return pod.demand.gpuCount > 0 || (pod.unseenClaims ?? 0) > 0;
}

function degraded(health: NodeHealth, pod: PodRequirements): boolean {
  return health !== HEALTHY && isDegradedFor(health, isDistributed(pod));
}

/**
 * GPU health in placement.
 *
 * Filter: a GPU pod is refused on a node whose AcceleratedHardwareReady is
 * False (the node monitoring agent saw a fatal GPU fault; the node is
 * awaiting repair), whatever the reason, and a pod of a distributed job on
 * a node whose NetworkingReady is False; the message names the condition, its
 * reason and message. Pods without GPUs pass untouched.
 *
 * Score: a degraded node (node-health.ts: warnings of the last hour, the GPU
 * condition Unknown, a repair condition False, a DRA taint of effect None;
 * networking down for a pod that is not distributed) scores 0, any other 100,
 * so it ranks below an equally good healthy node yet still takes a pod no
 * healthy node fits (it is never filtered). When every feasible node is
 * alike the plugin skips the pod (PreScore SKIP): without health signals it
 * changes no score at all.
 */
export const gpuHealth: FilterPlugin & ScorePlugin = {
  name: GPU_HEALTH_NAME,

  filter(_state: CycleState, pod: PodRequirements, node: NodeInfo): FilterStatus {
    const health = node.health;
    if (health === HEALTHY || !mayUseGpus(pod)) return PASS;
    if (health.failing !== undefined) return rejectionFor(failingRejections, health.failing, '');
    if (health.networkFailing !== undefined && isDistributed(pod)) {
      return rejectionFor(networkRejections, health.networkFailing, '; pods of distributed jobs are kept off this node');
    }
    return PASS;
  },

  preScore(_state: CycleState, pod: PodRequirements, nodes: readonly NodeInfo[]): PreScoreResult {
    if (pod.demand.gpuCount <= 0) return SKIP;
    let avoided = 0;
    for (const node of nodes) if (degraded(node.health, pod)) avoided++;
    return avoided === 0 || avoided === nodes.length ? SKIP : undefined;
  },

  score(_state: CycleState, pod: PodRequirements, node: NodeInfo): number {
    return degraded(node.health, pod) ? 0 : MAX_NODE_SCORE;
  },
};
