import type { ScorePlugin } from '../../lambdas/scheduling/framework';
import type { Profile } from '../../lambdas/scheduling/profile';
import { Profile as ProfileClass } from '../../lambdas/scheduling/profile';
import { DEFAULT_GPU_SCORE, DEFAULT_WEIGHTS, createSimulatorProfile } from '../../lambdas/scheduling/profiles';
import { NETWORK_LAYER_LABELS } from '../../lambdas/scheduling/keys';
import { gpuFit } from '../../lambdas/scheduling/plugins/gpu-fit';
import { nodeResourcesFit } from '../../lambdas/scheduling/plugins/node-resources-fit';
import { createFragmentationScore } from '../../lambdas/scheduling/plugins/fragmentation';
import { createGpuScore } from '../../lambdas/scheduling/plugins/gpu-score';
import type { WorkloadShape } from '../../lambdas/scheduling/fragmentation/workload-shapes';
import { createLayerAffinity, zoneLocality } from './baseline-plugins';

export const TOPOLOGY_POLICIES = ['zone', 'affinity', 'fgd', 'ours'] as const;
export type TopologyPolicy = (typeof TOPOLOGY_POLICIES)[number];

export function isTopologyPolicy(name: string): name is TopologyPolicy {
  return (TOPOLOGY_POLICIES as readonly string[]).includes(name);
}

/** Fragmentation in the labels is the profile's score (FGD's gradient with the filled-node view), not the paper's FGD. */
export const POLICY_LABELS: Readonly<Record<TopologyPolicy, string>> = {
  zone: 'zone-only locality (the earlier NetworkLocality)',
  affinity: 'pod affinity on layer-3 + Fragmentation',
  fgd: 'Fragmentation alone',
  ours: 'ours (default profile)',
};

/**
 * InterPodAffinity's weight next to FGD 20 and GpuScore 1: in kube-scheduler
 * a full preferred affinity is worth 2 × 100 = 200 points against the
 * extender's 180 at most (docs/extender.md), so a bit more than their 21.
 */
const AFFINITY_WEIGHT = 23;

const FILTERS = [nodeResourcesFit, gpuFit];

/** Every policy sees the same filters and the same FGD shapes (the workload's). */
export function createTopologyProfile(policy: TopologyPolicy, shapes: readonly WorkloadShape[]): Profile {
  const fragmentation = createFragmentationScore({ shapes });
  // The default profile's GpuScore and Fragmentation, with another locality plugin in place of ours.
  const withLocality = (locality: ScorePlugin, weight: number) =>
    new ProfileClass({
      name: policy,
      filters: FILTERS,
      scorers: [
        { plugin: createGpuScore(DEFAULT_GPU_SCORE), weight: DEFAULT_WEIGHTS.GpuScore },
        { plugin: locality, weight },
        { plugin: fragmentation, weight: DEFAULT_WEIGHTS.Fragmentation },
      ],
    });
  switch (policy) {
    case 'fgd':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: fragmentation, weight: 1 }] });
    case 'zone':
      return withLocality(zoneLocality, 5);
    case 'affinity':
      return withLocality(createLayerAffinity(NETWORK_LAYER_LABELS[2]), AFFINITY_WEIGHT);
    case 'ours':
      return createSimulatorProfile({ fragmentation: { shapes } });
  }
}
