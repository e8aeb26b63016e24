// Where the devices of an allocated ResourceClaim are: each result of its
// allocation names a driver, a pool and a device, and the ResourceSlice that
// publishes that device of that pool says which node it is on. A pod bound to
// one node with devices of another would be a broken allocation, so the DRA
// e2e tests check this rather than the claim's mere existence.
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';

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
