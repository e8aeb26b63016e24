// Installs on the local control plane the admission policies the CDK app
// deploys (cdk/lib/access/write-limit-policy.ts), so every e2e test and
// `npm start` run the Lambdas under the same limits as EKS.
import { CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { lambdaWriteLimitManifests, LAMBDA_WRITE_LIMITS, writeLimitDenialPrefix } from '../../cdk/lib/access/write-limit-policy';
import { MERGE_PATCH_OPTIONS } from '../../lambdas/kube';
import type { LambdaComponent } from '../control-plane/lambda-rbac';
import { waitFor } from '../common/wait';

const WRITING_LAMBDAS = ['labeler', 'reconciler'] as const satisfies readonly (keyof typeof LAMBDA_WRITE_LIMITS & LambdaComponent)[];
const PROBE_NODE = 'write-limit-probe';
const FOREIGN_LABEL = 'example.com/not-ours';

/**
 * Creates the policies and their bindings, then waits until the API server
 * enforces each one: policies reach the admission plugin through an informer,
 * a moment after they are created. The probe is a dry-run patch of a foreign
 * label on a throwaway node, as each Lambda's identity.
 */
export async function installWriteLimitPolicies(admin: KubeConfig, lambdaKubeconfigs: Readonly<Record<LambdaComponent, string>>): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(admin);
  for (const manifest of lambdaWriteLimitManifests()) await objects.create(manifest as KubernetesObject);

  const core = admin.makeApiClient(CoreV1Api);
  await core.createNode({ body: { metadata: { name: PROBE_NODE } } });
  try {
    for (const component of WRITING_LAMBDAS) {
      const limit = LAMBDA_WRITE_LIMITS[component];
      const identity = new KubeConfig();
      identity.loadFromFile(lambdaKubeconfigs[component]);
      const asLambda = identity.makeApiClient(CoreV1Api);
      const prefix = writeLimitDenialPrefix(limit.group);
      await waitFor(`the ${component}'s write-limit policy to be enforced`, async () => {
        try {
          await asLambda.patchNode({ name: PROBE_NODE, body: { metadata: { labels: { [FOREIGN_LABEL]: 'x' } } }, dryRun: 'All' }, MERGE_PATCH_OPTIONS);
          return undefined;
        } catch (error) {
          if (String(error).includes(prefix)) return true;
          throw error;
        }
      }, { timeoutMs: 30_000, intervalMs: 200 });
    }
  } finally {
    await core.deleteNode({ name: PROBE_NODE });
  }
}
