import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';
import { KARPENTER_COST_AT_MAX, karpenterDisruptionCost } from '../../../../lambdas/reconciler/karpenter-disruption-cost';
import type { AnnotationWriter } from '../../../../lambdas/reconciler/kube-objects';
import { reconcile } from '../../../../lambdas/reconciler/reconcile';

/** Karpenter v1.15's eviction cost of a pod with this karpenter.sh/disruption-cost (pkg/utils/disruption EvictionCost, no priority). */
const evictionCost = (annotation: string | null): number => Math.min(10, Math.max(-10, 1 + Number(annotation ?? 0) / 2 ** 27));
/** Its node's cost to disrupt: 1 + the positive eviction costs (ComputeRescheduleDisruptionCost). */
const nodeCost = (...annotations: (string | null)[]): number => 1 + annotations.map(evictionCost).reduce((sum, c) => sum + Math.max(0, c), 0);

describe('karpenterDisruptionCost: our cost in Karpenter\'s band', () => {
  it('maps the deletion-cost range onto eviction costs Karpenter tells apart: idle 1, warming up 0.6, busiest 9', () => {
    expect(karpenterDisruptionCost('0', 1000)).toBe('0');
    expect(karpenterDisruptionCost('1000', 1000)).toBe(String(KARPENTER_COST_AT_MAX));
    expect(evictionCost(karpenterDisruptionCost('1000', 1000))).toBe(9);
    expect(evictionCost(karpenterDisruptionCost('-50', 1000))).toBeCloseTo(0.6, 1);
    expect(evictionCost(karpenterDisruptionCost('250', 1000))).toBe(3);
    // Without the scaling the same costs are invisible to it.
    expect(evictionCost('1000')).toBeCloseTo(1, 4);
  });

  it('orders two equally priced nodes as the reconciler means: the idle pod\'s node goes first (price / cost, highest first)', () => {
    const price = 5.672;
    const idle = nodeCost(karpenterDisruptionCost('0', 1000));
    const busy = nodeCost(karpenterDisruptionCost('1000', 1000));
    expect([idle, busy]).toEqual([2, 10]);
    expect(price / idle).toBeGreaterThan(price / busy);
  });

  it('removes with the deletion cost, stays inside int32 for any maximum, and writes nothing for a value that is not an int32', () => {
    expect(karpenterDisruptionCost(null, 1000)).toBeNull();
    expect(karpenterDisruptionCost('2147483647', 1)).toBe('2147483647');
    expect(karpenterDisruptionCost('-2147483648', 1)).toBe('-2147483648');
    expect(karpenterDisruptionCost('abc', 1000)).toBeNull();
    expect(karpenterDisruptionCost('5', 0)).toBeNull();
  });
});

describe('reconcile keeps karpenter.sh/disruption-cost in step', () => {
  const now = new Date('2026-11-30T10:00:00Z');
  // Ready a minute ago: warming up, so its cost (-50) is fixed and no metric is read.
  const warmingPod = (annotations: Record<string, string>): V1Pod => ({
    metadata: { namespace: 'serving', name: 'web-1', annotations, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d4b9', uid: 'rs', controller: true }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(now.getTime() - 60_000) }] },
  });

  async function writesFor(pod: V1Pod, env: Record<string, string> = {}): Promise<Record<string, string | null>[]> {
    const { settings } = reconcilerConfigFromEnv({ NODE_UTILIZATION_ENABLED: 'false', ...env });
    const written: Record<string, string | null>[] = [];
    const writer: AnnotationWriter = {
      patchPodAnnotations: async (_ns, _name, annotations) => {
        written.push({ ...annotations });
        return 'written';
      },
      patchNodeAnnotation: async () => 'written',
      patchPodMetadata: async () => 'written',
      patchNodeHealth: async () => 'written',
    };
    await reconcile(settings, {
      cluster: { listPods: async () => ({ optedIn: [pod], all: [pod] }), listNodes: async () => [], listGpuResourceSlices: async () => [], listResourceClaims: async () => [], listFinishedOwnedPods: async () => [], listNominations: async () => [], listNodeWarnings: async () => [] },
      writer,
      metrics: { latestValues: async () => new Map() },
      now: () => now,
    });
    return written;
  }

  it('writes both in one patch when the cost changes', async () => {
    expect(await writesFor(warmingPod({}))).toEqual([{ 'controller.kubernetes.io/pod-deletion-cost': '-50', 'karpenter.sh/disruption-cost': '-53687091' }]);
  });

  it('adds Karpenter\'s copy where the cost stands but the copy is missing or stale; leaves a pod in step alone', async () => {
    expect(await writesFor(warmingPod({ 'controller.kubernetes.io/pod-deletion-cost': '-50' }))).toEqual([
      { 'controller.kubernetes.io/pod-deletion-cost': '-50', 'karpenter.sh/disruption-cost': '-53687091' },
    ]);
    expect(await writesFor(warmingPod({ 'controller.kubernetes.io/pod-deletion-cost': '-50', 'karpenter.sh/disruption-cost': '7' }))).toHaveLength(1);
    expect(await writesFor(warmingPod({ 'controller.kubernetes.io/pod-deletion-cost': '-50', 'karpenter.sh/disruption-cost': '-53687091' }))).toEqual([]);
  });

  it('with KARPENTER_DISRUPTION_COST=false writes the deletion cost alone', async () => {
    expect(await writesFor(warmingPod({}), { KARPENTER_DISRUPTION_COST: 'false' })).toEqual([{ 'controller.kubernetes.io/pod-deletion-cost': '-50' }]);
    expect(await writesFor(warmingPod({ 'controller.kubernetes.io/pod-deletion-cost': '-50' }), { KARPENTER_DISRUPTION_COST: 'false' })).toEqual([]);
  });
});
