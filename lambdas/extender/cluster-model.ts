import type { NodeInfo, PodInfo } from '../scheduling';
import { nodeInfoFromKubernetes, podInfoFromKubernetes, Snapshot } from '../scheduling';
import type { ClusterModel } from './kubernetes-cluster-source';

/**
 * The scheduling library's model of a listed cluster, for the Kubernetes
 * source (kubernetes-cluster-source.ts), built on the handler's side so the
 * lazily loaded source never constructs the library's classes itself.
 */
export const CLUSTER_MODEL: ClusterModel = {
  node: nodeInfoFromKubernetes,
  pod: podInfoFromKubernetes,
  snapshot: snapshotOf,
};

/**
 * The mirrored NodeInfos hold no pods: each snapshot binds the pods to copies,
 * so a snapshot being served is never changed by a later refresh.
 */
function snapshotOf(nodes: Iterable<NodeInfo>, pods: Iterable<PodInfo>): Snapshot {
  const copies: NodeInfo[] = [];
  for (const node of nodes) copies.push(node.clone());
  return new Snapshot(copies, pods);
}
