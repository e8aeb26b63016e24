import type { KubeConnection, KubeHttpClient, KubeHttpClientOptions } from '../kube/kube-http-client';
import { createKubeHttpClient } from '../kube/kube-http-client';
import type { NodeInfo, PodInfo } from '../scheduling';
import { nodeInfoFromKubernetes, podInfoFromKubernetes, Snapshot } from '../scheduling';
import type { ClusterSource } from './cluster-cache';

/**
 * Only pods that hold resources: bound to a node and not finished. The API
 * server evaluates this, so a 50,000-pod cluster does not ship its completed
 * jobs to the Lambda.
 */
export const BOUND_POD_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

export const DEFAULT_LIST_PAGE_SIZE = 2000;

export interface KubernetesClusterSourceOptions {
  /** Limits the nodes listed (e.g. only GPU nodes); all nodes when unset. */
  readonly nodeLabelSelector?: string;
  /** Items per list call; bigger pages mean fewer round trips at 50,000 pods. */
  readonly pageSize?: number;
  /** Timeout and response-size limit per list call. */
  readonly http?: KubeHttpClientOptions;
}

/**
 * Lists nodes and bound pods from the Kubernetes API (list nodes and pods is
 * all the extender's RBAC allows) and builds a snapshot. Each page is reduced
 * to the library's slim NodeInfo/PodInfo as it arrives, so the full API
 * objects of a big cluster are never all in memory at once. The connection
 * comes from a factory so it is resolved lazily (DescribeCluster, when the
 * endpoint is not in the environment, on first use) and a failure surfaces as
 * a failed refresh, not a failed cold start. It uses the small read-only HTTP
 * client, not client-node, to keep the extender's bundle and cold start small.
 */
export function kubernetesClusterSource(connection: () => Promise<KubeConnection>, options: KubernetesClusterSourceOptions = {}): ClusterSource {
  let client: Promise<KubeHttpClient> | undefined;
  const connect = () => {
    if (client === undefined) {
      const pending = connection().then((c) => createKubeHttpClient(c, options.http));
      // A failed connection (e.g. DescribeCluster throttled) is retried on the next refresh.
      pending.catch(() => {
        if (client === pending) client = undefined;
      });
      client = pending;
    }
    return client;
  };
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;

  async function listNodes(kube: KubeHttpClient): Promise<NodeInfo[]> {
    const infos: NodeInfo[] = [];
    const selector = options.nodeLabelSelector ? { labelSelector: options.nodeLabelSelector } : {};
    for await (const page of kube.listPages('/api/v1/nodes', { limit: pageSize, ...selector })) {
      for (const node of page) {
        const info = nodeInfoFromKubernetes(node);
        if (info !== undefined) infos.push(info);
      }
    }
    return infos;
  }

  async function listPods(kube: KubeHttpClient): Promise<PodInfo[]> {
    const infos: PodInfo[] = [];
    for await (const page of kube.listPages('/api/v1/pods', { limit: pageSize, fieldSelector: BOUND_POD_FIELD_SELECTOR })) {
      for (const pod of page) {
        const info = podInfoFromKubernetes(pod);
        if (info !== undefined) infos.push(info);
      }
    }
    return infos;
  }

  return {
    async load(): Promise<Snapshot> {
      const kube = await connect();
      const [nodeInfos, podInfos] = await Promise.all([listNodes(kube), listPods(kube)]);
      return new Snapshot(nodeInfos, podInfos);
    },
  };
}
