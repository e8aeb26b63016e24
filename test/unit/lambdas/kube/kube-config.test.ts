import type { RequestOptions } from 'node:https';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { eksKubeConfig, kubeConfigFromEnvironment } from '../../../../lambdas/kube';

const endpoint = {
  name: 'prod-gpu',
  server: 'https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com',
  caData: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64'),
};

function authorization(options: RequestOptions): unknown {
  const headers = options.headers;
  return headers && !Array.isArray(headers) ? (headers as Record<string, unknown>)['Authorization'] : undefined;
}

describe('eksKubeConfig', () => {
  it('points at the EKS endpoint with its CA', () => {
    const kc = eksKubeConfig(endpoint, { token: () => Promise.resolve('t') });
    expect(kc.getCurrentCluster()).toMatchObject({ name: 'prod-gpu', server: endpoint.server, caData: endpoint.caData, skipTLSVerify: false });
  });

  it('asks the token source on every request, so a refreshed token is used without rebuilding clients', async () => {
    let current = 'k8s-aws-v1.first';
    const kc = eksKubeConfig(endpoint, { token: () => Promise.resolve(current) });
    const first: RequestOptions = {};
    await kc.applyToHTTPSOptions(first);
    expect(authorization(first)).toBe('Bearer k8s-aws-v1.first');
    current = 'k8s-aws-v1.second';
    const second: RequestOptions = {};
    await kc.applyToHTTPSOptions(second);
    expect(authorization(second)).toBe('Bearer k8s-aws-v1.second');
  });
});

describe('kubeConfigFromEnvironment', () => {
  it('names CLUSTER_NAME when neither KUBECONFIG nor CLUSTER_NAME is set', async () => {
    await expect(kubeConfigFromEnvironment({ AWS_REGION: 'us-east-1' })).rejects.toThrow(/CLUSTER_NAME is required/);
  });
  it('rejects an invalid cluster name before calling AWS', async () => {
    await expect(kubeConfigFromEnvironment({ CLUSTER_NAME: 'bad name!', AWS_REGION: 'us-east-1' })).rejects.toBeInstanceOf(ConfigError);
  });
  it('names KUBECONFIG when the file cannot be read', async () => {
    await expect(kubeConfigFromEnvironment({ KUBECONFIG: '/nonexistent/kubeconfig' })).rejects.toThrow(/KUBECONFIG="\/nonexistent\/kubeconfig" is invalid/);
  });
});
