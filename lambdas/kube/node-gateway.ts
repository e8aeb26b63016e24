import type { CoreV1Event, KubeConfig, V1Node } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import type { JsonPatchOperation } from './json-patch';
import { JSON_PATCH_OPTIONS } from './json-patch';
import { isKubeNotFound } from './kube-errors';
import type { MetadataPatch } from './merge-patch';
import { FIELD_MANAGER, MERGE_PATCH_OPTIONS } from './merge-patch';
import { collectPages, paginate } from './paginate';

export interface ListOptions {
  /** Items per page (the API server's `limit`); default 500. */
  readonly pageSize?: number;
  readonly labelSelector?: string;
}

/** The node calls our Lambdas make; handlers depend on this, not on client-node. */
export interface NodeGateway {
  /** All nodes, page by page (limit/continue), so memory stays bounded for big clusters. */
  listNodePages(options?: ListOptions): AsyncGenerator<readonly V1Node[]>;
  /** All nodes in one array. */
  listNodes(options?: ListOptions): Promise<V1Node[]>;
  /** The node, or undefined when there is none with that name. */
  readNode(name: string): Promise<V1Node | undefined>;
  /** Merge-patches metadata.labels: only the given keys change (null deletes one). */
  patchNodeLabels(name: string, labels: MetadataPatch): Promise<V1Node>;
  /** Merge-patches metadata.annotations the same way. */
  patchNodeAnnotations(name: string, annotations: MetadataPatch): Promise<V1Node>;
  /** One merge patch of metadata.labels and metadata.annotations together (null deletes a key). */
  patchNodeMetadata(name: string, metadata: { readonly labels: MetadataPatch; readonly annotations: MetadataPatch }): Promise<V1Node>;
  /**
   * Events about nodes matching `fieldSelector` (e.g. `involvedObject.kind=Node,type=Warning`):
   * they live in the `default` namespace, where event recorders put the
   * events of cluster-scoped objects.
   */
  listNodeEvents(options: { readonly fieldSelector: string; readonly pageSize?: number }): Promise<CoreV1Event[]>;
  /** Applies a JSON Patch (for list entries, which a merge patch can only replace whole); all or nothing. */
  jsonPatchNode(name: string, operations: readonly JsonPatchOperation[]): Promise<V1Node>;
}

export const DEFAULT_PAGE_SIZE = 500;

/** Where event recorders (client-go's, controller-runtime's) write events about cluster-scoped objects such as Nodes. */
export const NODE_EVENTS_NAMESPACE = 'default';

export function createNodeGateway(kc: KubeConfig): NodeGateway {
  const core = kc.makeApiClient(CoreV1Api);

  const listNodePages = (options: ListOptions = {}): AsyncGenerator<readonly V1Node[]> =>
    paginate((page) =>
      core.listNode({ ...page, limit: options.pageSize ?? DEFAULT_PAGE_SIZE, ...(options.labelSelector ? { labelSelector: options.labelSelector } : {}) }),
    );

  return {
    listNodePages,
    listNodes: (options) => collectPages(listNodePages(options)),
    async readNode(name) {
      try {
        return await core.readNode({ name });
      } catch (error) {
        if (isKubeNotFound(error)) return undefined;
        throw error;
      }
    },
    patchNodeLabels(name, labels) {
      return core.patchNode({ name, body: { metadata: { labels } }, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
    },
    patchNodeAnnotations(name, annotations) {
      return core.patchNode({ name, body: { metadata: { annotations } }, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
    },
    patchNodeMetadata(name, metadata) {
      return core.patchNode({ name, body: { metadata }, fieldManager: FIELD_MANAGER }, MERGE_PATCH_OPTIONS);
    },
    listNodeEvents(options) {
      return collectPages(
        paginate((page) =>
          core.listNamespacedEvent({ namespace: NODE_EVENTS_NAMESPACE, ...page, limit: options.pageSize ?? DEFAULT_PAGE_SIZE, fieldSelector: options.fieldSelector }),
        ),
      );
    },
    jsonPatchNode(name, operations) {
      return core.patchNode({ name, body: operations, fieldManager: FIELD_MANAGER }, JSON_PATCH_OPTIONS);
    },
  };
}
