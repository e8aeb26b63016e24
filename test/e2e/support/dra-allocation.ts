// Where the devices of an allocated ResourceClaim are: each result of its
// allocation names a driver, a pool and a device, and the ResourceSlice that
// publishes that device of that pool says which node it is on. A pod bound to
// one node with devices of another would be a broken allocation, so the DRA
// e2e tests check this rather than the claim's mere existence.
import { CoreV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { GPU_SCHEDULER_NAME } from '../../../local/scheduler-config';

interface AllocatedClaim extends KubernetesObject {
  status?: { allocation?: { devices?: { results?: { driver: string; pool: string; device: string }[] } } };
}

interface Slice extends KubernetesObject {
  spec?: { driver?: string; nodeName?: string; pool?: { name?: string }; devices?: { name: string }[] };
}

/** `node/device` for each device allocated to the claim, the node from the slice that publishes it ('?' when no slice does). */
export async function allocatedDeviceNodes(kubeConfig: KubeConfig, namespace: string, claimName: string): Promise<string[]> {
  const objects = KubernetesObjectApi.makeApiClient(kubeConfig);
  const claim = (await objects.read({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: claimName, namespace } })) as AllocatedClaim;
  const results = claim.status?.allocation?.devices?.results ?? [];
  if (results.length === 0) return [];
  const slices = (await objects.list('resource.k8s.io/v1', 'ResourceSlice')).items as Slice[];
  return results.map(({ driver, pool, device }) => {
    const slice = slices.find((s) => s.spec?.driver === driver && s.spec.pool?.name === pool && (s.spec.devices ?? []).some((d) => d.name === device));
    return `${slice?.spec?.nodeName ?? '?'}/${device}`;
  });
}

/** A gpu-scheduler pod that asks for its GPUs only through a claim named `gpus`, made from `template` (no nvidia.com/gpu in its requests). */
export function claimingPod(name: string, template: string, nodeSelector: Record<string, string>, labels: Record<string, string> = {}): V1Pod {
  return {
    metadata: { name, labels },
    spec: {
      schedulerName: GPU_SCHEDULER_NAME,
      nodeSelector,
      resourceClaims: [{ name: 'gpus', resourceClaimTemplateName: template }],
      containers: [{ name: 'main', image: 'cuda', resources: { claims: [{ name: 'gpus' }] } }],
    },
  };
}

/** `node/device` for each device allocated to the `gpus` claim of a pod made by claimingPod; empty before kube-scheduler allocated it. */
export async function podAllocatedDevices(kubeConfig: KubeConfig, namespace: string, pod: string): Promise<string[]> {
  const read = await kubeConfig.makeApiClient(CoreV1Api).readNamespacedPod({ namespace, name: pod });
  const claimName = read.status?.resourceClaimStatuses?.find((s) => s.name === 'gpus')?.resourceClaimName;
  if (claimName === undefined || claimName === null) return [];
  return allocatedDeviceNodes(kubeConfig, namespace, claimName);
}
