import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { EKS_TOKEN_PREFIX } from '../../../../lambdas/kube/eks-token';
import { kubeConnectionFromEnvironment } from '../../../../lambdas/kube/kube-connection';
import type { MotoServer } from '../../../../local/aws/moto';
import { awsClientConfig, awsEnvironment, startMoto } from '../../../../local/aws/moto';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const CA_DATA = Buffer.from(CA_PEM).toString('base64');

describe('kubeConnectionFromEnvironment on EKS', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('uses CLUSTER_ENDPOINT and CLUSTER_CA_DATA without calling AWS, with a presigned-STS token', async () => {
    // Credentials for local signing only; AWS_ENDPOINT_URL points nowhere, so any AWS call would fail.
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
    const c = await kubeConnectionFromEnvironment({
      CLUSTER_NAME: 'prod-gpu',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
      CLUSTER_ENDPOINT: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
      CLUSTER_CA_DATA: CA_DATA,
    });
    expect(c.server).toBe('https://ABC.gr7.eu-west-1.eks.amazonaws.com');
    expect(c.caPem).toBe(CA_PEM);
    const token = await c.tokens.token();
    expect(token.startsWith(EKS_TOKEN_PREFIX)).toBe(true);
    expect(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString()).toMatch(/^https:\/\/sts\.eu-west-1\.amazonaws\.com\/\?Action=GetCallerIdentity/);
  });

  it.each([
    [{ CLUSTER_ENDPOINT: 'https://a.eks.amazonaws.com' }, /CLUSTER_CA_DATA is required/],
    [{ CLUSTER_CA_DATA: CA_DATA }, /CLUSTER_ENDPOINT is required/],
    [{ CLUSTER_ENDPOINT: 'http://a.eks.amazonaws.com', CLUSTER_CA_DATA: CA_DATA }, /CLUSTER_ENDPOINT="http:\/\/a.eks.amazonaws.com" is invalid/],
    [{ CLUSTER_ENDPOINT: 'https://a.eks.amazonaws.com', CLUSTER_CA_DATA: 'bm90IGEgY2VydA==' }, /CLUSTER_CA_DATA=.* is invalid/],
  ])('rejects an incomplete or invalid endpoint pair %j', async (vars, message) => {
    await expect(kubeConnectionFromEnvironment({ CLUSTER_NAME: 'prod-gpu', AWS_REGION: 'eu-west-1', ...vars })).rejects.toThrow(message);
  });

  it('rejects an invalid cluster name before calling AWS', async () => {
    await expect(kubeConnectionFromEnvironment({ CLUSTER_NAME: 'bad name!', AWS_REGION: 'us-east-1' })).rejects.toBeInstanceOf(ConfigError);
  });

  describe('without CLUSTER_ENDPOINT (DescribeCluster against moto_server)', () => {
    let moto: MotoServer;
    beforeAll(async () => {
      moto = await startMoto();
    }, 90_000);
    afterAll(async () => moto.stop());

    it('takes the endpoint from DescribeCluster', async () => {
      for (const [key, value] of Object.entries(awsEnvironment(moto.url))) vi.stubEnv(key, value);
      const eks = new EKSClient(awsClientConfig(moto.url));
      const { cluster } = await eks.send(
        new CreateClusterCommand({ name: 'fallback-gpu', roleArn: 'arn:aws:iam::123456789012:role/eks', resourcesVpcConfig: { subnetIds: [] } }),
      );
      const c = await kubeConnectionFromEnvironment({ CLUSTER_NAME: 'fallback-gpu', ...awsEnvironment(moto.url) });
      expect(cluster?.endpoint).toMatch(/^https:/);
      expect(c.server).toBe(cluster?.endpoint);
      expect(c.caPem).toBe(Buffer.from(cluster?.certificateAuthority?.data ?? '', 'base64').toString('utf8'));
    });
  });
});
