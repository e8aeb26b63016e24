import type { CoreV1Event, KubeConfig, V1Pod } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import type { MetadataPatch } from './merge-patch';
import { FIELD_MANAGER, MERGE_PATCH_OPTIONS } from './merge-patch';
import type { ListOptions } from './node-gateway';
import { DEFAULT_PAGE_SIZE } from './node-gateway';
import { collectPages, paginate } from './paginate';

export interface PodListOptions extends ListOptions {
  /** Only this namespace; all namespaces when unset. */
  readonly namespace?: string;
  readonly fieldSelector?: string;
}

/** The pod calls our Lambdas make. */
export interface PodGateway {
  listPodPages(options?: PodListOptions): AsyncGenerator<readonly V1Pod[]>;
  listPods(options?: PodListOptions): Promise<V1Pod[]>;
  /** Merge-patches metadata.annotations: only the given keys change (null deletes one). */
  patchPodAnnotations(namespace: string, name: string, annotations: MetadataPatch): Promise<V1Pod>;
  /** One merge patch of metadata.annotations and metadata.labels together (null deletes a key). */
  patchPodMetadata(namespace: string, name: string, metadata: { readonly annotations: MetadataPatch; readonly labels: MetadataPatch }): Promise<V1Pod>;
  /** Events about pods (core/v1), e.g. `fieldSelector: 'involvedObject.kind=Pod,reason=Nominated'`. */
  listPodEvents(options: PodListOptions): Promise<CoreV1Event[]>;
}

export function createPodGateway(kc: KubeConfig): PodGateway {
  const core = kc.makeApiClient(CoreV1Api);

  const listPodPages = (options: PodListOptions = {}): AsyncGenerator<readonly V1Pod[]> =>
    paginate((page) => {
      const params = {
        ...page,
        limit: options.pageSize ?? DEFAULT_PAGE_SIZE,
        ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}),
        ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
      };
      return options.namespace ? core.listNamespacedPod({ namespace: options.namespace, ...params }) : core.listPodForAllNamespaces(params);
    });

  return {
    listPodPages,
    listPods: (options) => collectPages(listPodPages(options)),
    patchPodAnnotations(namespace, name, annotations) {
      return core.patchNamespacedPod(
        { namespace, name, body: { metadata: { annotations } }, fieldManager: FIELD_MANAGER },
        MERGE_PATCH_OPTIONS,
      );
    },
    listPodEvents(options) {
      return collectPages(
        paginate((page) => {
          const params = {
            ...page,
            limit: options.pageSize ?? DEFAULT_PAGE_SIZE,
            ...(options.fieldSelector ? { fieldSelector: options.fieldSelector } : {}),
          };
          return options.namespace ? core.listNamespacedEvent({ namespace: options.namespace, ...params }) : core.listEventForAllNamespaces(params);
        }),
      );
    },
    patchPodMetadata(namespace, name, metadata) {
      return core.patchNamespacedPod({ namespace, name, body: { metadata }, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
    },
  };
}
