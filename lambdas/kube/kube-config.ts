import { KubeConfig } from '@kubernetes/client-node';
import type { Env } from '../env';
import { ConfigError, envOptionalString } from '../env';
import { awsClientConfigFromEnv, createEksClient } from '../aws';
import { BearerTokenAuthenticator, EKS_AUTH_PROVIDER_NAME } from './bearer-token-authenticator';
import type { EksClusterEndpoint } from './eks-cluster-endpoint';
import { describeClusterEndpoint } from './eks-cluster-endpoint';
import type { BearerTokenSource } from './eks-token-source';
import { clusterNameFromEnv, eksTokenSourceFor } from './eks-access';
import { errorMessage } from '../common/error-message';

export { CLUSTER_NAME_PATTERN } from './eks-access';

/**
 * The Kubernetes client configuration for this process.
 * - KUBECONFIG set: that file (local runs, tests against the local control plane).
 * - Otherwise EKS: CLUSTER_NAME → DescribeCluster (endpoint + CA, cached) and a
 *   presigned-STS bearer token with the Lambda role's credentials, cached and
 *   renewed before its 15-minute validity ends (applied per request).
 */
export async function kubeConfigFromEnvironment(env: Env = process.env): Promise<KubeConfig> {
  const kubeconfigPath = envOptionalString(env, 'KUBECONFIG');
  if (kubeconfigPath !== undefined) {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(kubeconfigPath);
    } catch (error) {
      throw new ConfigError('KUBECONFIG', kubeconfigPath, `a readable kubeconfig file (${errorMessage(error)})`);
    }
    return kc;
  }

  const clusterName = clusterNameFromEnv(env);
  const aws = awsClientConfigFromEnv(env);
  const endpoint = await describeClusterEndpoint(createEksClient(aws), clusterName, `${aws.region}/${clusterName}/${aws.endpoint ?? ''}`);
  return eksKubeConfig(endpoint, eksTokenSourceFor(clusterName, aws.region));
}

/** A KubeConfig for an EKS endpoint whose bearer token comes from `tokens` on every request. */
export function eksKubeConfig(endpoint: EksClusterEndpoint, tokens: BearerTokenSource): KubeConfig {
  const kc = new KubeConfig();
  kc.addAuthenticator(new BearerTokenAuthenticator(tokens));
  kc.loadFromOptions({
    clusters: [{ name: endpoint.name, server: endpoint.server, caData: endpoint.caData, skipTLSVerify: false }],
    users: [{ name: 'lambda', authProvider: { name: EKS_AUTH_PROVIDER_NAME, config: {} } }],
    contexts: [{ name: endpoint.name, cluster: endpoint.name, user: 'lambda' }],
    currentContext: endpoint.name,
  });
  return kc;
}
