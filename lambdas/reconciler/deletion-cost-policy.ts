import { UNCOVERED_OWNER_KINDS } from '../observability/metric-catalog';
import { INT32_MIN, toInt32 } from './int32';
import type { PodController } from './pod-view';
import { sanitiseCount, sanitiseRatio } from './sanitise';

/**
 * Only the ReplicaSet controller reads pod-deletion-cost when it picks pods
 * to remove (a Deployment scales down through its ReplicaSet). A StatefulSet
 * removes its highest ordinal, the Job controller picks active pods to remove
 * without reading it, a DaemonSet runs one pod per node, and a bare pod has
 * no controller: a cost written on those changes nothing but costs a pod update. They are counted by these
 * owner kinds instead (`Other` for any other controller, `None` for no
 * controller), the dimension values of the PodsNotCovered metric.
 */
export { UNCOVERED_OWNER_KINDS };
export type UncoveredOwnerKind = (typeof UNCOVERED_OWNER_KINDS)[number];

/** Whether a controller honours the cost of a pod it owns: `covered`, or the owner kind it is counted under. */
export function deletionCostCoverage(controller: PodController | undefined): 'covered' | UncoveredOwnerKind {
  if (controller === undefined) return 'None';
  const group = controller.apiVersion.split('/')[0];
  if (group === 'apps' && controller.kind === 'ReplicaSet') return 'covered';
  if (group === 'apps' && (controller.kind === 'StatefulSet' || controller.kind === 'DaemonSet')) return controller.kind;
  if (group === 'batch' && controller.kind === 'Job') return 'Job';
  return 'Other';
}

/**
 * What a pod's application reported over the lookback window. `undefined`
 * means CloudWatch had no datapoint for that metric: no signal, not zero.
 */
export interface PodSignals {
  readonly activeRequests: number | undefined;
  readonly cacheHitRate: number | undefined;
  readonly avgResponseTimeMs: number | undefined;
}

export interface DeletionCostPolicy {
  /** Points per concurrent request (seed: 5). */
  readonly activeRequestsWeight: number;
  /** Points for a cache hit rate of 1.0; the rate is a ratio in 0..1 (seed: 100). */
  readonly cacheHitRateWeight: number;
  /** Latency under `fastLatencyMs` earns `fastLatencyBonus` (seed: 100 ms → 50). */
  readonly fastLatencyMs: number;
  readonly fastLatencyBonus: number;
  /** Latency under `moderateLatencyMs` earns `moderateLatencyBonus` (seed: 500 ms → 20). */
  readonly moderateLatencyMs: number;
  readonly moderateLatencyBonus: number;
  /** Upper bound of a metric-driven cost (seed: 1000). */
  readonly maxCost: number;
  /** Pods Ready for less than this many seconds are warming up. */
  readonly warmupSeconds: number;
  /** Cost of a warming-up (or not yet Ready) pod: below every metric-driven cost, so it goes first. */
  readonly warmupCost: number;
  /** Cost of a pod that reported nothing in the lookback window. */
  readonly noSignalCost: number;
  /**
   * Cost of a pod on a failing or degraded GPU node (lambdas/scheduling/gpu-health-outcome.ts):
   * below every other, so a scale-down (and Karpenter's consolidation) takes it first.
   */
  readonly unhealthyNodeCost: number;
}

export const SEED_DELETION_COST_POLICY: DeletionCostPolicy = {
  activeRequestsWeight: 5,
  cacheHitRateWeight: 100,
  fastLatencyMs: 100,
  fastLatencyBonus: 50,
  moderateLatencyMs: 500,
  moderateLatencyBonus: 20,
  maxCost: 1000,
  warmupSeconds: 300,
  warmupCost: -50,
  // Kubernetes treats a pod without the annotation as cost 0, so 0 ranks a
  // silent pod exactly as if this reconciler did not exist: below any pod
  // that proves it is useful, above pods still warming up.
  noSignalCost: 0,
  // Below the warm-up cost: a pod on a GPU that is failing or giving warnings goes before a pod warming up on a healthy one.
  unhealthyNodeCost: -100,
};

export type CostBasis = 'metrics' | 'warmup' | 'noSignal' | 'unhealthyNode';

export interface PodCostInput {
  readonly signals: PodSignals;
  /** Seconds since the pod became Ready; `undefined` when it is not Ready. */
  readonly readySeconds: number | undefined;
  /** Its node is failing or degraded: whatever its metrics say, it should be the first to go. */
  readonly onUnhealthyNode?: boolean;
}

export interface PodCost {
  /** Integer inside int32, before quantization. */
  readonly raw: number;
  readonly basis: CostBasis;
}

export function podDeletionCost(input: PodCostInput, policy: DeletionCostPolicy): PodCost {
  if (input.onUnhealthyNode === true) return { raw: toInt32(policy.unhealthyNodeCost), basis: 'unhealthyNode' };
  if (isWarmingUp(input.readySeconds, policy)) {
    // A pod that is not Ready yet or only just became Ready has a cold cache
    // and its metrics describe a ramp-up, not its steady value.
    return { raw: toInt32(policy.warmupCost), basis: 'warmup' };
  }
  const activeRequests = sanitiseCount(input.signals.activeRequests);
  const cacheHitRate = sanitiseRatio(input.signals.cacheHitRate);
  const latencyMs = sanitiseCount(input.signals.avgResponseTimeMs);
  if (activeRequests === undefined && cacheHitRate === undefined && latencyMs === undefined) {
    return { raw: toInt32(policy.noSignalCost), basis: 'noSignal' };
  }
  let score = 0;
  if (activeRequests !== undefined) score += activeRequests * policy.activeRequestsWeight;
  if (cacheHitRate !== undefined) score += cacheHitRate * policy.cacheHitRateWeight;
  if (latencyMs !== undefined) score += latencyBonus(latencyMs, policy);
  return { raw: boundedCost(score, policy.maxCost), basis: 'metrics' };
}

/** Not Ready (undefined), or Ready for less than the warm-up period (a clock skew's negative age included). */
export function isWarmingUp(readySeconds: number | undefined, policy: DeletionCostPolicy): boolean {
  return readySeconds === undefined || !(readySeconds >= 0) || readySeconds < policy.warmupSeconds;
}

function latencyBonus(latencyMs: number, policy: DeletionCostPolicy): number {
  if (latencyMs < policy.fastLatencyMs) return policy.fastLatencyBonus;
  if (latencyMs < policy.moderateLatencyMs) return policy.moderateLatencyBonus;
  return 0;
}

/**
 * A score can be NaN or ±Infinity only through extreme weights times extreme
 * values (e.g. Infinity * 0); treat that as the floor rather than the cap so a
 * broken metric can never protect a pod.
 */
function boundedCost(score: number, maxCost: number): number {
  if (Number.isNaN(score)) return toInt32(Math.min(0, maxCost));
  return toInt32(Math.min(maxCost, Math.max(INT32_MIN, Math.floor(score))));
}
