import type { KubeConfig, V1ResourceSlice } from '@kubernetes/client-node';
import { ResourceV1Api } from '@kubernetes/client-node';
import { isKubeNotFound } from './kube-errors';
import { DEFAULT_PAGE_SIZE } from './node-gateway';
import { collectPages, paginate } from './paginate';

export interface ResourceSliceListOptions {
  /** Items per page (the API server's `limit`); default 500. */
  readonly pageSize?: number;
  /** E.g. `spec.driver=gpu.nvidia.com`: one driver's slices only. */
  readonly fieldSelector?: string;
}

/** The ResourceSlice calls our Lambdas make (resource.k8s.io/v1); handlers depend on this, not on client-node. */
export interface ResourceSliceGateway {
  /**
   * Every matching slice, page by page; undefined when the API server does
   * not serve resource.k8s.io/v1 (404 on the group): a cluster without DRA,
   * which is not an error.
   */
  listResourceSlices(options?: ResourceSliceListOptions): Promise<V1ResourceSlice[] | undefined>;
}

export function createResourceSliceGateway(kc: KubeConfig): ResourceSliceGateway {
  const resource = kc.makeApiClient(ResourceV1Api);
  return {
    async listResourceSlices(options = {}) {
      const pages = paginate((page) =>
        resource.listResourceSlice({ ...page, limit: options.pageSize ?? DEFAULT_PAGE_SIZE, ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}) }),
      );
      try {
        return await collectPages(pages);
      } catch (error) {
        if (isKubeNotFound(error)) return undefined;
        throw error;
      }
    },
  };
}
