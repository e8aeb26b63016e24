// What the preflight asks EKS about the cluster the config names: one
// DescribeCluster, read only.
import { DescribeClusterCommand, type EKSClient } from '@aws-sdk/client-eks';
import { errorMessage } from '../../lambdas/common/error-message';

export interface EksClusterFacts {
  readonly name: string;
  readonly version: string | undefined;
  /** `accessConfig.authenticationMode` (API, API_AND_CONFIG_MAP, CONFIG_MAP); undefined when EKS does not report it. */
  readonly authenticationMode: string | undefined;
  readonly vpcId: string | undefined;
  readonly subnetIds: readonly string[];
  readonly clusterSecurityGroupId: string | undefined;
}

/** The cluster, `'not-found'`, or why EKS could not be asked (no credentials, no region, refused). */
export type EksLookup = { readonly found: EksClusterFacts } | { readonly notFound: string } | { readonly failed: string };

export async function describeEksCluster(eks: EKSClient, name: string): Promise<EksLookup> {
  try {
    const { cluster } = await eks.send(new DescribeClusterCommand({ name }));
    if (cluster === undefined) return { notFound: name };
    return {
      found: {
        name,
        version: cluster.version,
        authenticationMode: cluster.accessConfig?.authenticationMode,
        vpcId: cluster.resourcesVpcConfig?.vpcId,
        subnetIds: cluster.resourcesVpcConfig?.subnetIds ?? [],
        clusterSecurityGroupId: cluster.resourcesVpcConfig?.clusterSecurityGroupId,
      },
    };
  } catch (error) {
    if ((error as { name?: unknown }).name === 'ResourceNotFoundException') return { notFound: name };
    return { failed: errorMessage(error).split('\n')[0] ?? 'failed' };
  }
}
