import { KubeConfig } from '@kubernetes/client-node';
import type { Env } from '../env';
import { awsClientConfigFromEnv, createEksClient } from '../aws';
import { BearerTokenAuthenticator, EKS_AUTH_PROVIDER_NAME } from './bearer-token-authenticator';
import type { EksClusterEndpoint } from './eks-cluster-endpoint';
import { describeClusterEndpoint } from './eks-cluster-endpoint';
import type { BearerTokenSource } from './eks-token-source';
import { clusterNameFromEnv, eksTokenSourceFor } from './eks-access';
import type { KubeConnection } from './kube-http-client';

export { CLUSTER_NAME_PATTERN } from './eks-access';

/**
 * The Kubernetes client configuration of the EKS cluster the Lambda runs for:
 * CLUSTER_NAME → DescribeCluster (endpoint + CA, cached) and a presigned-STS
 * bearer token with the Lambda role's credentials, cached and renewed before
 * its 15-minute validity ends (applied per request). Local hosts inject a
 * connection instead (kubeConfigOf; local/control-plane/kubeconfig-connection.ts).
 */
export async function kubeConfigFromEnvironment(env: Env = process.env): Promise<KubeConfig> {
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

/** A KubeConfig for an injected connection (a local host's kubeconfig file), its token asked for on every request. */
export function kubeConfigOf(connection: KubeConnection): KubeConfig {
  const caData = Buffer.from(connection.caPem, 'utf8').toString('base64');
  return eksKubeConfig({ name: 'injected', server: connection.server, caData }, connection.tokens);
}
