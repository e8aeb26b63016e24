import { awsClientConfigFromEnv } from '../aws/aws-client-config';
import { createEksClient } from '../aws/clients';
import type { Env } from '../env';
import { ConfigError, envOptionalString } from '../env';
import { describeClusterEndpoint } from './eks-cluster-endpoint';
import { clusterNameFromEnv, eksTokenSourceFor } from './eks-access';
import type { KubeConnection } from './kube-http-client';

/*
 * Connection settings for the read-only HTTP client (kube-http-client.ts),
 * without @kubernetes/client-node. Imports stay file-level (not the ../kube
 * barrel) so a bundle that uses this does not pull client-node in.
 */

/**
 * The EKS cluster the Lambda runs for: CLUSTER_NAME, the endpoint and CA from
 * CLUSTER_ENDPOINT and CLUSTER_CA_DATA (the stack sets both), else from
 * DescribeCluster, and a presigned-STS token with the function's
 * credentials, cached and renewed. Local hosts connect to a kubeconfig's
 * cluster instead and inject that connection (local/control-plane/kubeconfig-connection.ts).
 */
export async function kubeConnectionFromEnvironment(env: Env = process.env): Promise<KubeConnection> {
  const clusterName = clusterNameFromEnv(env);
  const aws = awsClientConfigFromEnv(env);
  const { server, caPem } = endpointFromEnv(env) ?? (await describeCluster(env, clusterName));
  return { server, caPem, tokens: eksTokenSourceFor(clusterName, aws.region) };
}

/** CLUSTER_ENDPOINT and CLUSTER_CA_DATA, both or neither. */
function endpointFromEnv(env: Env): { server: string; caPem: string } | undefined {
  const server = envOptionalString(env, 'CLUSTER_ENDPOINT');
  const caData = envOptionalString(env, 'CLUSTER_CA_DATA');
  if (server === undefined && caData === undefined) return undefined;
  if (server === undefined) throw new ConfigError('CLUSTER_ENDPOINT', undefined, 'the API server URL; set it together with CLUSTER_CA_DATA, or neither');
  if (caData === undefined) throw new ConfigError('CLUSTER_CA_DATA', undefined, 'the base64 cluster CA; set it together with CLUSTER_ENDPOINT, or neither');
  if (!isHttpsUrl(server)) throw new ConfigError('CLUSTER_ENDPOINT', server, 'an https URL such as https://ABC.gr7.us-east-1.eks.amazonaws.com');
  return { server, caPem: decodeCaData(caData, 'CLUSTER_CA_DATA') };
}

/**
 * Only when the stack did not pass the endpoint (an attached cluster, whose
 * endpoint the stack does not know). Static imports on purpose: a dynamic
 * import() makes esbuild bundle the whole module graph, EC2 client included.
 * The CA is taken as EKS returns it; a bad one fails the TLS handshake, which names it.
 */
async function describeCluster(env: Env, clusterName: string): Promise<{ server: string; caPem: string }> {
  const aws = awsClientConfigFromEnv(env);
  const endpoint = await describeClusterEndpoint(createEksClient(aws), clusterName, `${aws.region}/${clusterName}/${aws.endpoint ?? ''}`);
  return { server: endpoint.server, caPem: Buffer.from(endpoint.caData, 'base64').toString('utf8') };
}

/** Base64 PEM, as kubeconfigs and DescribeCluster carry it; `variable` names the setting in the error. */
export function decodeCaData(data: string, variable: string): string {
  const pem = Buffer.from(data, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(variable, `${data.slice(0, 20)}…`, 'base64 of a PEM CA certificate');
  return pem;
}

export function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}
