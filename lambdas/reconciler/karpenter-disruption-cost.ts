import { parseInt32, toInt32 } from './int32';

/**
 * Karpenter's own per-pod disruption cost. When it ranks nodes for
 * consolidation it reads this annotation first and pod-deletion-cost only
 * without it (sigs.k8s.io/karpenter v1.15 pkg/utils/disruption EvictionCost):
 * a pod's eviction cost is `1 + value / 2^27` (plus priority / 2^25),
 * clamped to [-10, 10]; a node's is 1 + the sum of its pods' positive ones;
 * candidates go in order of price / that sum, highest first.
 */
export const KARPENTER_DISRUPTION_COST_ANNOTATION = 'karpenter.sh/disruption-cost';

/**
 * Our deletion costs are 0..MAX_DELETION_COST (1000 by default), which to
 * Karpenter would be 1 + 1000 / 2^27 = 1.0000075 per pod: no difference at
 * all. So the same cost is written for Karpenter scaled to its band: the
 * maximum becomes 2^30, an eviction cost of 1 + 8 = 9 (inside its clamp of
 * 10), an idle pod (0) stays 1, and a warming-up pod (-50 of 1000) 0.6. Two
 * nodes of one price, one with an idle pod and one with a busy pod, then cost
 * 1 + 1 = 2 and 1 + 9 = 10 to disrupt: Karpenter consolidates the idle one
 * first (price / 2 > price / 10).
 */
export const KARPENTER_COST_AT_MAX = 2 ** 30;

/** The Karpenter disruption cost for a pod-deletion-cost value (null removes both). */
export function karpenterDisruptionCost(deletionCost: string | null, maxCost: number): string | null {
  if (deletionCost === null) return null;
  const cost = parseInt32(deletionCost);
  if (cost === undefined || !(maxCost > 0)) return null;
  return String(toInt32(Math.round((cost / maxCost) * KARPENTER_COST_AT_MAX)));
}
