import type { KubeConfig } from '@kubernetes/client-node';
import { createNodeGateway, createPodGateway } from '../kube';
import type { ClusterSource, ClusterState } from './cluster-cache';

/**
 * Only pods that hold resources: bound to a node and not finished. The API
 * server evaluates this, so a 50,000-pod cluster does not ship its completed
 * jobs to the Lambda.
 */
export const BOUND_POD_FIELD_SELECTOR = 'spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed';

export interface KubernetesClusterSourceOptions {
  /** Limits the nodes listed (e.g. only GPU nodes); all nodes when unset. */
  readonly nodeLabelSelector?: string;
  readonly pageSize?: number;
}

/**
 * Lists nodes and bound pods from the Kubernetes API (list/watch nodes and
 * pods is all the extender's RBAC allows). The KubeConfig comes from a
 * factory so it is resolved lazily (EKS DescribeCluster on first use) and a
 * failure surfaces as a failed refresh, not a failed cold start.
 */
export function kubernetesClusterSource(kubeConfig: () => Promise<KubeConfig>, options: KubernetesClusterSourceOptions = {}): ClusterSource {
  let gateways: Promise<{ nodes: ReturnType<typeof createNodeGateway>; pods: ReturnType<typeof createPodGateway> }> | undefined;
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
  return {
    async list(): Promise<ClusterState> {
      const { nodes, pods } = await connect();
      const page = options.pageSize === undefined ? {} : { pageSize: options.pageSize };
      const [nodeList, podList] = await Promise.all([
        nodes.listNodes({ ...page, ...(options.nodeLabelSelector ? { labelSelector: options.nodeLabelSelector } : {}) }),
        pods.listPods({ ...page, fieldSelector: BOUND_POD_FIELD_SELECTOR }),
      ]);
      return { nodes: nodeList, pods: podList };
    },
  };
}
