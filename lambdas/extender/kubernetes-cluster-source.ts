import type { KubeConfig } from '@kubernetes/client-node';
import type { NodeGateway, PodGateway } from '../kube';
import { createNodeGateway, createPodGateway } from '../kube';
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
}

/**
 * Lists nodes and bound pods from the Kubernetes API (list nodes and pods is
 * all the extender's RBAC allows) and builds a snapshot. Each page is reduced
 * to the library's slim NodeInfo/PodInfo as it arrives, so the full API
 * objects of a big cluster are never all in memory at once. The KubeConfig
 * comes from a factory so it is resolved lazily (EKS DescribeCluster on first
 * use) and a failure surfaces as a failed refresh, not a failed cold start.
 */
export function kubernetesClusterSource(kubeConfig: () => Promise<KubeConfig>, options: KubernetesClusterSourceOptions = {}): ClusterSource {
  let gateways: Promise<{ nodes: NodeGateway; pods: PodGateway }> | undefined;
  const connect = () => {
    if (gateways === undefined) {
      const pending = kubeConfig().then((kc) => ({ nodes: createNodeGateway(kc), pods: createPodGateway(kc) }));
      // A failed connection (e.g. DescribeCluster throttled) is retried on the next refresh.
      pending.catch(() => {
        if (gateways === pending) gateways = undefined;
      });
      gateways = pending;
    }
    return gateways;
  };
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;

  async function listNodes(gateway: NodeGateway): Promise<NodeInfo[]> {
    const infos: NodeInfo[] = [];
    const selector = options.nodeLabelSelector ? { labelSelector: options.nodeLabelSelector } : {};
    for await (const page of gateway.listNodePages({ pageSize, ...selector })) {
      for (const node of page) {
        const info = nodeInfoFromKubernetes(node);
        if (info !== undefined) infos.push(info);
      }
    }
    return infos;
  }

  async function listPods(gateway: PodGateway): Promise<PodInfo[]> {
    const infos: PodInfo[] = [];
    for await (const page of gateway.listPodPages({ pageSize, fieldSelector: BOUND_POD_FIELD_SELECTOR })) {
      for (const pod of page) {
        const info = podInfoFromKubernetes(pod);
        if (info !== undefined) infos.push(info);
      }
    }
    return infos;
  }

  return {
    async load(): Promise<Snapshot> {
      const { nodes, pods } = await connect();
      const [nodeInfos, podInfos] = await Promise.all([listNodes(nodes), listPods(pods)]);
      return new Snapshot(nodeInfos, podInfos);
    },
  };
}
