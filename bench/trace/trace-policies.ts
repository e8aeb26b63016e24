import type { Profile } from '../../lambdas/scheduling/profile';
import { Profile as ProfileClass } from '../../lambdas/scheduling/profile';
import type { ProfileOptions } from '../../lambdas/scheduling/profiles';
import { createSimulatorProfile } from '../../lambdas/scheduling/profiles';
import { gpuFit } from '../../lambdas/scheduling/plugins/gpu-fit';
import { nodeResourcesFit } from '../../lambdas/scheduling/plugins/node-resources-fit';
import { bestFit } from '../../lambdas/scheduling/plugins/best-fit';
import { gpuSharePacking } from '../../lambdas/scheduling/plugins/gpu-share-packing';
import { leastAllocated } from '../../lambdas/scheduling/plugins/least-allocated';
import { createRandomPlacement } from '../../lambdas/scheduling/plugins/random-device';
import { createFragmentationScore } from '../../lambdas/scheduling/plugins/fragmentation';
import type { WorkloadShape } from '../../lambdas/scheduling/fragmentation/workload-shapes';

/**
 * Ablations: the default profile on the deployed path with one design choice
 * undone (`--ablation` runs them all beside `extender`; docs/simulator.md).
 */
export const ABLATIONS = {
  'extender-fgd-view': 'Fragmentation lookahead 0: FGD\'s next-pod view alone (the default before the filled-device view)',
  'extender-fgd-tenth': 'Fragmentation lookahead 0.9: FGD\'s next-pod view keeps a tenth of the one-device shapes\' part (the default before 2026-12-06)',
  'extender-even-blend': 'Fragmentation lookahead 0.5: the two views weighed the same (the default before the filled view led)',
  'extender-coverage-95': 'shapes learned from the bound GPU pods cover 95 % of them, as the paper\'s typical pods, instead of 85 %',
  'extender-no-partial-gpu': 'Fragmentation partialGpuWeight 0: no preference for partly used GPUs on unshared nodes',
  'extender-given-shapes': 'the trace\'s typical shapes given in advance (all pods, as the paper\'s FGD) instead of learned from bound GPU pods',
  'extender-no-prior': 'no 1/2/4/8-GPU prior for the first pod',
  'extender-gpu-fit': 'GpuScore\'s "free GPUs just above the request" back (fit weight 0.7)',
  'extender-packing': 'GpuPacking weight 1',
  'extender-random-ties': 'kube-scheduler\'s random pick among equal totals (no single node at the top level)',
  'extender-all-nodes': 'percentageOfNodesToScore 100 instead of kube-scheduler\'s adaptive default',
} as const;
export type AblationName = keyof typeof ABLATIONS;
export const ABLATION_NAMES = Object.keys(ABLATIONS) as AblationName[];

export const POLICIES = ['random', 'spread', 'bestfit', 'packing', 'fgd', 'default', 'extender', ...ABLATION_NAMES] as const;
export type PolicyName = (typeof POLICIES)[number];
export const DEFAULT_POLICIES: readonly PolicyName[] = ['random', 'spread', 'bestfit', 'packing', 'default'];

/** How the deployed path is run: percentageOfNodesToScore (0 = adaptive) and whether one node keeps the top level. */
export interface DeployedPathOptions {
  readonly percentageOfNodesToScore: number;
  readonly stableTopLevel: boolean;
}

/**
 * `extender` and its ablations run the default profile on the path the
 * cluster runs it (runTrace's kube-scheduler path: percentageOfNodesToScore
 * sampling, the extender's integer levels × the deployed weight, random
 * ties); every other policy is scored continuously over all nodes, as the
 * paper's simulator does. Undefined for those.
 */
export function deployedPathOf(policy: PolicyName): DeployedPathOptions | undefined {
  if (policy !== 'extender' && !(policy in ABLATIONS)) return undefined;
  return { percentageOfNodesToScore: policy === 'extender-all-nodes' ? 100 : 0, stableTopLevel: policy !== 'extender-random-ties' };
}

/** The profile options an ablation changes (empty for `extender` and the path-only ablations). */
function ablationOptions(policy: PolicyName, context: PolicyContext): ProfileOptions {
  switch (policy) {
    case 'extender-fgd-view':
      return { fragmentation: { lookahead: 0 } };
    case 'extender-fgd-tenth':
      return { fragmentation: { lookahead: 0.9 } };
    case 'extender-even-blend':
      return { fragmentation: { lookahead: 0.5 } };
    case 'extender-coverage-95':
      return { fragmentation: { coverage: 0.95 } };
    case 'extender-no-partial-gpu':
      return { fragmentation: { partialGpuWeight: 0 } };
    case 'extender-given-shapes':
      return { fragmentation: { shapes: context.shapes } };
    case 'extender-no-prior':
      return { fragmentation: { priorUntilPods: 0 } };
    case 'extender-gpu-fit':
      return { gpuScore: { fitWeight: 0.7, utilizationWeight: 0.3 } };
    case 'extender-packing':
      return { weights: { GpuPacking: 1 } };
    default:
      return {};
  }
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
      // The paper's FGD: its next-pod view alone, none of the profile's additions.
      return new ProfileClass({ name: policy, filters: FILTERS, scorers: [{ plugin: createFragmentationScore({ shapes: context.shapes, lookahead: 0, partialGpuWeight: 0 }), weight: 1 }] });
    case 'default':
      return createSimulatorProfile();
    default:
      return createSimulatorProfile(ablationOptions(policy, context));
  }
}
