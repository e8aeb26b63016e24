import type { EKSClient } from '@aws-sdk/client-eks';
import { DescribeClusterCommand } from '@aws-sdk/client-eks';

export interface EksClusterEndpoint {
  readonly name: string;
  /** https URL of the API server. */
  readonly server: string;
  /** Base64 PEM of the cluster CA, as DescribeCluster returns it. */
  readonly caData: string;
}

/** Endpoint and CA never change for a cluster's life; keep them for the warm container. */
const cache = new Map<string, Promise<EksClusterEndpoint>>();

export function describeClusterEndpoint(eks: EKSClient, clusterName: string, cacheKey = clusterName): Promise<EksClusterEndpoint> {
  let pending = cache.get(cacheKey);
  if (!pending) {
    pending = fetchEndpoint(eks, clusterName);
    cache.set(cacheKey, pending);
    // A failed lookup must not poison the cache: the next invocation retries.
    pending.catch(() => cache.delete(cacheKey));
  }
  return pending;
}

async function fetchEndpoint(eks: EKSClient, clusterName: string): Promise<EksClusterEndpoint> {
  const { cluster } = await eks.send(new DescribeClusterCommand({ name: clusterName }));
  const server = cluster?.endpoint;
  const caData = cluster?.certificateAuthority?.data;
  if (!server || !caData) {
    throw new Error(`EKS cluster ${clusterName} has no endpoint or certificate authority yet (status ${cluster?.status ?? 'unknown'})`);
  }
  return { name: clusterName, server, caData };
}

/** For tests that create and delete clusters within one process. */
export function clearClusterEndpointCache(): void {
  cache.clear();
}
