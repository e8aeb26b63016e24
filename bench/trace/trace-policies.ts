import type { Profile } from '../../lambdas/scheduling/profile';
import { Profile as ProfileClass } from '../../lambdas/scheduling/profile';
import { createSimulatorProfile } from '../../lambdas/scheduling/profiles';
import { gpuFit } from '../../lambdas/scheduling/plugins/gpu-fit';
import { nodeResourcesFit } from '../../lambdas/scheduling/plugins/node-resources-fit';
import { bestFit } from '../../lambdas/scheduling/plugins/best-fit';
import { gpuSharePacking } from '../../lambdas/scheduling/plugins/gpu-share-packing';
import { leastAllocated } from '../../lambdas/scheduling/plugins/least-allocated';
import { createRandomPlacement } from '../../lambdas/scheduling/plugins/random-device';
import { createFragmentationScore } from '../../lambdas/scheduling/plugins/fragmentation';
import type { WorkloadShape } from '../../lambdas/scheduling/plugins/workload-shapes';

export const POLICIES = ['random', 'spread', 'bestfit', 'packing', 'fgd', 'default', 'extender'] as const;
export type PolicyName = (typeof POLICIES)[number];
export const DEFAULT_POLICIES: readonly PolicyName[] = ['random', 'spread', 'bestfit', 'packing', 'default'];

/**
 * `extender` is the default profile on the path the cluster runs it
 * (runTrace's kube-scheduler path: percentageOfNodesToScore sampling, the
 * extender's integer levels × the deployed weight, random ties); every other
 * policy is scored continuously over all nodes, as the paper's simulator does.
 */
export function runsThroughKubeScheduler(policy: PolicyName): boolean {
  return policy === 'extender';
}

export function isPolicyName(name: string): name is PolicyName {
  return (POLICIES as readonly string[]).includes(name);
}

export interface PolicyContext {
  /** Seeded source for policies that choose at random. */
  readonly random: () => number;
  /** The trace's typical pod shapes (what the FGD paper's simulator feeds its FGD score). */
  readonly shapes: readonly WorkloadShape[];
}

const FILTERS = [nodeResourcesFit, gpuFit];

/** Every policy is a library Profile: the same filters, the policy's score plugins. */
export function createPolicyProfile(policy: PolicyName, context: PolicyContext): Profile {
  switch (policy) {
    case 'random':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: createRandomPlacement(context.random), weight: 1 }] });
    case 'spread':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: leastAllocated, weight: 1 }] });
    case 'bestfit':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: bestFit, weight: 1 }] });
    case 'packing':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: gpuSharePacking, weight: 1 }] });
    case 'fgd':
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: createFragmentationScore({ shapes: context.shapes }), weight: 1 }] });
    case 'default':
    case 'extender':
      return createSimulatorProfile();
  }
}
