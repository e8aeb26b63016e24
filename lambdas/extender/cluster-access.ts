import type { Env } from '../env';
import { kubeConnectionFromEnvironment } from '../kube/kube-connection';
import type { ClusterSource } from './cluster-cache';
import type { KubernetesClusterSourceOptions } from './kubernetes-cluster-source';
import { kubernetesClusterSource } from './kubernetes-cluster-source';

/**
 * Everything the extender needs to talk to the cluster: the list/watch
 * client, the EKS connection (credentials, the STS-presigned token, and
 * DescribeCluster for an attached cluster) and node:https. wiring.ts loads
 * this module with import() on the first refresh, so the Lambda bundle puts
 * it, and the AWS SDK with it, in a chunk of its own that a cold start does
 * not parse (see "Lambda bundles and cold start" in docs/benchmarks.md).
 */
export function clusterSourceFromEnvironment(env: Env, options: KubernetesClusterSourceOptions): ClusterSource {
  return kubernetesClusterSource(() => kubeConnectionFromEnvironment(env), options);
}
