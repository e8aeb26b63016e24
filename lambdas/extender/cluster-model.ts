import { MirrorSnapshots, nodeInfoFromKubernetes, podInfoFromKubernetes } from '../scheduling';
import type { ClusterModel } from './kubernetes-cluster-source';

/**
 * The scheduling library's model of a listed cluster, for the Kubernetes
 * source (kubernetes-cluster-source.ts), built on the handler's side so the
 * lazily loaded source never constructs the library's classes itself. Each
 * source gets its own MirrorSnapshots: the mirrored NodeInfos hold no pods,
 * each snapshot binds the pods to copies (made again only for the nodes that
 * changed), so a snapshot being served is never changed by a later refresh.
 */
export const CLUSTER_MODEL: ClusterModel = {
  node: nodeInfoFromKubernetes,
  pod: podInfoFromKubernetes,
  snapshots: () => new MirrorSnapshots(),
};
