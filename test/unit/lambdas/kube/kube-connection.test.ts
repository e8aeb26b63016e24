import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { EKS_TOKEN_PREFIX } from '../../../../lambdas/kube/eks-token';
import { kubeConnectionFromEnvironment, kubeConnectionFromKubeconfig } from '../../../../lambdas/kube/kube-connection';
import { writeKubeconfig } from '../../../../local/kubeconfig-file';
import type { MotoServer } from '../../../../local/moto';
import { awsClientConfig, awsEnvironment, startMoto } from '../../../../local/moto';

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const CA_DATA = Buffer.from(CA_PEM).toString('base64');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kube-connection-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'other', cluster: { server: 'https://wrong.example' } }, { name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

describe('kubeConnectionFromKubeconfig', () => {
  it('reads the current context of a JSON kubeconfig: server, embedded CA, bearer token', async () => {
    const c = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://127.0.0.1:6443', 'certificate-authority-data': CA_DATA }, { token: 'abc' }), '/x/config');
    expect(c.server).toBe('https://127.0.0.1:6443');
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('abc');
  });

  it('reads the YAML kubeconfig the local harness writes', async () => {
    const path = join(dir, 'harness.yaml');
    writeKubeconfig(path, { server: 'https://127.0.0.1:7443', caPem: CA_PEM, user: 'extender', token: 'tok-1' });
    const c = await kubeConnectionFromEnvironment({ KUBECONFIG: path });
    expect(c.server).toBe('https://127.0.0.1:7443');
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('tok-1');
  });

  it('resolves certificate-authority and tokenFile relative to the kubeconfig, re-reading the token', async () => {
    writeFileSync(join(dir, 'ca.crt'), CA_PEM);
    writeFileSync(join(dir, 'token'), 'first\n');
    const c = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://k:443', 'certificate-authority': 'ca.crt' }, { tokenFile: 'token' }), join(dir, 'config'));
    expect(c.caPem).toBe(CA_PEM);
    await expect(c.tokens.token()).resolves.toBe('first');
    writeFileSync(join(dir, 'token'), 'rotated\n');
    await expect(c.tokens.token()).resolves.toBe('rotated');
  });

  it.each([
    [{ exec: { command: 'aws' } }, /uses exec, which this client does not support/],
    [{ 'client-certificate-data': 'x', 'client-key-data': 'y' }, /uses client-certificate-data, client-key-data/],
    [{ 'auth-provider': { name: 'oidc' } }, /uses auth-provider/],
    [{}, /has no token or tokenFile/],
  ])('fails clearly on unsupported user auth %j', async (user, message) => {
    const error: unknown = await kubeConnectionFromKubeconfig(kubeconfig({ server: 'https://k', 'certificate-authority-data': CA_DATA }, user), '/x/config').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^KUBECONFIG="\/x\/config" is invalid/);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    [{ server: 'https://k' }, /no certificate-authority-data or certificate-authority/],
    [{ server: 'https://k', 'certificate-authority-data': CA_DATA, 'insecure-skip-tls-verify': true }, /insecure-skip-tls-verify is not supported/],
    [{ server: 'http://k', 'certificate-authority-data': CA_DATA }, /is not an https URL/],
    [{ server: 'https://k', 'certificate-authority-data': Buffer.from('not a cert').toString('base64') }, /base64 of a PEM CA certificate/],
  ])('fails clearly on a cluster it cannot pin %j', async (cluster, message) => {
    await expect(kubeConnectionFromKubeconfig(kubeconfig(cluster, { token: 't' }), '/x/config')).rejects.toThrow(message);
  });

  it('names a missing context, and text that is neither JSON nor YAML', async () => {
    await expect(kubeConnectionFromKubeconfig(JSON.stringify({ contexts: [], 'current-context': 'gone' }), '/x/config')).rejects.toThrow(/context "gone" not found/);
    await expect(kubeConnectionFromKubeconfig('a: [unclosed', '/x/config')).rejects.toThrow(/not JSON or YAML/);
  });

  it('names KUBECONFIG when the file cannot be read', async () => {
    await expect(kubeConnectionFromEnvironment({ KUBECONFIG: '/nonexistent/kubeconfig' })).rejects.toThrow(/KUBECONFIG="\/nonexistent\/kubeconfig" is invalid/);
  });
});

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
