// How the Lambdas reach EKS, against moto's EKS API: endpoint and CA from
// DescribeCluster (cached for the warm container) and the presigned-STS bearer
// token applied per request. moto has no real API server behind the endpoint,
// so this stops at the request options the Kubernetes client would send.
import type { RequestOptions } from 'node:https';
import { CreateClusterCommand, DeleteClusterCommand, DescribeClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { EKS_TOKEN_PREFIX, kubeConfigFromEnvironment } from '../../lambdas/kube';
import { e2eHarness } from './support/e2e-context';
import { awsClientConfig, awsEnvironment } from '../../local/aws/moto';

const h = e2eHarness();
const eks = new EKSClient(awsClientConfig(h.info.motoUrl));

async function createCluster(name: string): Promise<{ endpoint: string; ca: string }> {
  await eks.send(
    new CreateClusterCommand({ name, roleArn: 'arn:aws:iam::123456789012:role/eks-cluster', resourcesVpcConfig: { subnetIds: [] } }),
  );
  const { cluster } = await eks.send(new DescribeClusterCommand({ name }));
  if (!cluster?.endpoint || !cluster.certificateAuthority?.data) throw new Error('moto returned a cluster without endpoint or CA');
  return { endpoint: cluster.endpoint, ca: cluster.certificateAuthority.data };
}

function bearer(options: RequestOptions): string {
  const headers = options.headers;
  const value = headers && !Array.isArray(headers) ? (headers as Record<string, unknown>)['Authorization'] : undefined;
  if (typeof value !== 'string' || !value.startsWith('Bearer ')) throw new Error(`no bearer token in ${JSON.stringify(headers)}`);
  return value.slice('Bearer '.length);
}

describe('kubeConfigFromEnvironment on EKS (CLUSTER_NAME, no KUBECONFIG)', () => {
  it('uses the DescribeCluster endpoint and CA, and a presigned-STS token for that cluster', async () => {
    const name = `gpu-e2e-${Date.now()}`;
    const { endpoint, ca } = await createCluster(name);
    const kc = await kubeConfigFromEnvironment({ ...awsEnvironment(h.info.motoUrl), CLUSTER_NAME: name });

    expect(kc.getCurrentCluster()).toMatchObject({ name, server: endpoint, caData: ca, skipTLSVerify: false });
    const options: RequestOptions = {};
    await kc.applyToHTTPSOptions(options);
    const token = bearer(options);
    expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
    const url = new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
    expect(url.hostname).toBe('sts.us-east-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('GetCallerIdentity');
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host;x-k8s-aws-id');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
    // The signing key id is the credentials' (the harness's dummy ones), so the chain was used.
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^testing\/\d{8}\/us-east-1\/sts\/aws4_request$/);
  });

  it('keeps the endpoint for the warm container (DescribeCluster once) and the token across invocations', async () => {
    const name = `gpu-e2e-cache-${Date.now()}`;
    const { endpoint } = await createCluster(name);
    const env = { ...awsEnvironment(h.info.motoUrl), CLUSTER_NAME: name };
    const first = await kubeConfigFromEnvironment(env);
    const firstOptions: RequestOptions = {};
    await first.applyToHTTPSOptions(firstOptions);

    // With the cluster gone from moto, only the cache can answer.
    await eks.send(new DeleteClusterCommand({ name }));
    const second = await kubeConfigFromEnvironment(env);
    expect(second.getCurrentCluster()?.server).toBe(endpoint);
    const secondOptions: RequestOptions = {};
    await second.applyToHTTPSOptions(secondOptions);
    expect(bearer(secondOptions)).toBe(bearer(firstOptions));
  });

  it('fails clearly for an unknown cluster and does not cache the failure', async () => {
    const name = `gpu-e2e-late-${Date.now()}`;
    const env = { ...awsEnvironment(h.info.motoUrl), CLUSTER_NAME: name };
    await expect(kubeConfigFromEnvironment(env)).rejects.toThrow(/not found|No cluster found/i);
    const { endpoint } = await createCluster(name);
    expect((await kubeConfigFromEnvironment(env)).getCurrentCluster()?.server).toBe(endpoint);
  });
});
