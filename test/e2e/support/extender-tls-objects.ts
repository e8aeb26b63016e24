// The rotation identity's objects as the stack applies them
// (cdk/lib/access/extender-tls-manifests.ts): the empty Secret, the Role and
// its binding, and the admission policy with its binding, which is
// cluster-scoped and so is removed again by the file that made it. Returns
// once the API server enforces the policy (policies reach the admission
// plugin through an informer, a moment after they are created).
import { CoreV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { CERTIFICATES_GROUP, extenderTlsManifests, type ExtenderTlsManifestProps } from '../../../cdk/lib/access/extender-tls-manifests';
import { writeLimitDenialPrefix } from '../../../cdk/lib/access/write-limit-policy';
import { MERGE_PATCH_OPTIONS } from '../../../lambdas/kube';
import { waitFor } from '../../../local/common/wait';
import { impersonating } from './impersonation';

export async function applyExtenderTlsObjects(admin: KubeConfig, props: ExtenderTlsManifestProps): Promise<{ remove(): Promise<void> }> {
  const client = KubernetesObjectApi.makeApiClient(admin);
  const manifests = extenderTlsManifests(props);
  const clusterScoped = manifests.filter((manifest) => (manifest.metadata as { namespace?: string }).namespace === undefined) as KubernetesObject[];
  // Left by a file that failed before its teardown.
  for (const manifest of clusterScoped) await client.delete(manifest).catch(() => undefined);
  for (const manifest of manifests) await client.create(manifest as KubernetesObject);
  const asRotation = impersonating(admin, CERTIFICATES_GROUP, 'certificate-rotation').makeApiClient(CoreV1Api);
  const prefix = writeLimitDenialPrefix(CERTIFICATES_GROUP);
  await waitFor('the rotation identity\'s admission policy to be enforced', async () => {
    try {
      await asRotation.patchNamespacedSecret({ namespace: props.namespace, name: props.secretName, body: { metadata: { labels: { probe: 'x' } } }, dryRun: 'All' }, MERGE_PATCH_OPTIONS);
      return undefined;
    } catch (error) {
      if (String(error).includes(prefix) || String((error as { body?: unknown }).body).includes(prefix)) return true;
      throw error;
    }
  }, { timeoutMs: 30_000, intervalMs: 200 });
  return {
    remove: async () => {
      for (const manifest of clusterScoped) await client.delete(manifest).catch(() => undefined);
    },
  };
}
