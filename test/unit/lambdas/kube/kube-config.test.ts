import type { RequestOptions } from 'node:https';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { eksKubeConfig, kubeConfigFromEnvironment, kubeConfigOf } from '../../../../lambdas/kube';

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
  it('names CLUSTER_NAME when it is not set, KUBECONFIG or not (the Lambdas never read a kubeconfig file)', async () => {
    await expect(kubeConfigFromEnvironment({ AWS_REGION: 'us-east-1' })).rejects.toThrow(/CLUSTER_NAME is required/);
    await expect(kubeConfigFromEnvironment({ AWS_REGION: 'us-east-1', KUBECONFIG: '/tmp/kubeconfig' })).rejects.toThrow(/CLUSTER_NAME is required/);
  });
  it('rejects an invalid cluster name before calling AWS', async () => {
    await expect(kubeConfigFromEnvironment({ CLUSTER_NAME: 'bad name!', AWS_REGION: 'us-east-1' })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('kubeConfigOf', () => {
  it('points at the connection with its CA and asks its token source on every request', async () => {
    const caPem = Buffer.from(endpoint.caData, 'base64').toString('utf8');
    let current = 'local-1';
    const kc = kubeConfigOf({ server: 'https://127.0.0.1:6443', caPem, tokens: { token: () => Promise.resolve(current) } });
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://127.0.0.1:6443', caData: endpoint.caData, skipTLSVerify: false });
    const first: RequestOptions = {};
    await kc.applyToHTTPSOptions(first);
    expect(authorization(first)).toBe('Bearer local-1');
    expect(String(first.ca)).toBe(caPem);
    current = 'local-2';
    const second: RequestOptions = {};
    await kc.applyToHTTPSOptions(second);
    expect(authorization(second)).toBe('Bearer local-2');
  });
});
