import type { KubeConfig, ResourceV1ApiListResourceClaimForAllNamespacesRequest, ResourceV1ResourceClaim, V1ResourceSlice } from '@kubernetes/client-node';
import { ResourceV1Api } from '@kubernetes/client-node';
import { isKubeNotFound } from './kube-errors';
import { DEFAULT_PAGE_SIZE } from './node-gateway';
import { collectPages, paginate } from './paginate';

export interface DraListOptions {
  /** Items per page (the API server's `limit`); default 500. */
  readonly pageSize?: number;
  /** E.g. `spec.driver=gpu.nvidia.com`: one driver's slices only. */
  readonly fieldSelector?: string;
}

/** The Dynamic Resource Allocation calls our Lambdas make (resource.k8s.io/v1); handlers depend on this, not on client-node. */
export interface DraGateway {
  /**
   * Every matching slice, page by page; undefined when the API server does
   * not serve resource.k8s.io/v1 (404 on the group): a cluster without DRA,
   * which is not an error.
   */
  listResourceSlices(options?: DraListOptions): Promise<V1ResourceSlice[] | undefined>;
  /** Every ResourceClaim of every namespace, page by page; undefined when resource.k8s.io/v1 is not served. */
  listResourceClaims(options?: Pick<DraListOptions, 'pageSize'>): Promise<ResourceV1ResourceClaim[] | undefined>;
}

export function createDraGateway(kc: KubeConfig): DraGateway {
  const resource = kc.makeApiClient(ResourceV1Api);
  const collect = async <T>(pages: AsyncIterable<readonly T[]>): Promise<T[] | undefined> => {
    try {
      return await collectPages(pages);
    } catch (error) {
      if (isKubeNotFound(error)) return undefined;
      throw error;
    }
  };
  return {
    listResourceSlices(options = {}) {
      return collect(
        paginate((page) =>
          resource.listResourceSlice({ ...page, limit: options.pageSize ?? DEFAULT_PAGE_SIZE, ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}) }),
        ),
      );
    },
    listResourceClaims(options = {}) {
      return collect(
        paginate((page) => resource.listResourceClaimForAllNamespaces({ ...page, limit: options.pageSize ?? DEFAULT_PAGE_SIZE } satisfies ResourceV1ApiListResourceClaimForAllNamespacesRequest)),
      );
    },
  };
}
