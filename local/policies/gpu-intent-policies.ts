// Installs on the local control plane the GPU-intent admission policies the
// CDK app deploys (cdk/lib/admission/gpu-intent-policies.ts), so e2e tests
// and `npm start` admit pods as EKS does.
import { CoreV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { gpuIntentManifests, gpuIntentOptionsOf, NAMESPACE_OPT_IN, type AnnotationCheckAction } from '../../cdk/lib/admission/gpu-intent-policies';
import { waitFor } from '../common/wait';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

const PROBE_NAMESPACE = 'gpu-intent-probe';

/**
 * Creates the policies and bindings, then waits until the API server applies
 * them (they reach the admission plugins through an informer, a moment after
 * they are created): a dry-run GPU pod in an opted-in namespace must come
 * back with the GPU scheduler's name.
 */
export async function installGpuIntentPolicies(admin: KubeConfig, annotationCheck: AnnotationCheckAction = APP_CONFIG_DEFAULTS.admission.gpuAnnotations): Promise<void> {
  const schedulerName = APP_CONFIG_DEFAULTS.scheduler.name;
  const objects = KubernetesObjectApi.makeApiClient(admin);
  for (const manifest of gpuIntentManifests({ ...gpuIntentOptionsOf(APP_CONFIG_DEFAULTS), schedulerName, annotationCheck })) await objects.create(manifest as KubernetesObject);

  const core = admin.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: PROBE_NAMESPACE, labels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } } });
  try {
    await waitFor('the GPU-intent admission policies to be applied', async () => {
      const pod = await core.createNamespacedPod({
        namespace: PROBE_NAMESPACE,
        dryRun: 'All',
        body: {
          metadata: { name: 'probe', annotations: { 'gpu.nvidia.com/memory': '80Gi' } },
          spec: { containers: [{ name: 'probe', image: 'registry.k8s.io/pause:3.10', resources: { limits: { [GPU_RESOURCE]: '1' } } }] },
        },
      });
      const affinity = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
      return pod.spec?.schedulerName === schedulerName && affinity !== undefined ? true : undefined;
    }, { timeoutMs: 30_000, intervalMs: 200 });
  } finally {
    await core.deleteNamespace({ name: PROBE_NAMESPACE });
  }
}
