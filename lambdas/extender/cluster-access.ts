import type { Env } from '../env';
import { kubeConnectionFromEnvironment } from '../kube/kube-connection';
import type { ClusterSource } from './cluster-cache';
import type { ClusterModel, KubernetesClusterSourceOptions } from './kubernetes-cluster-source';
import { kubernetesClusterSource } from './kubernetes-cluster-source';

/**
 * Everything the extender needs to talk to the cluster: the list/watch
 * client, the EKS connection (credentials, the STS-presigned token, and
 * DescribeCluster for an attached cluster) and node:https. wiring.ts loads
 * this module with import() on the first refresh, and the Lambda is built as
 * two bundles (cdk/lib/functions/split-build.ts): the handler in one file,
 * this module and the AWS SDK in another that a cold start does not read
 * (see "Lambda bundles and cold start" in docs/benchmarks.md). What the two
 * share with identity (the scheduling library's classes) comes in through
 * `model`.
 */
export function clusterSourceFromEnvironment(env: Env, options: KubernetesClusterSourceOptions, model: ClusterModel): ClusterSource {
  return kubernetesClusterSource(() => kubeConnectionFromEnvironment(env), model, options);
}
