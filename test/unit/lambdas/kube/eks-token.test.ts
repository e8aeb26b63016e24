import { describe, expect, it } from 'vitest';
import { createEksToken, EKS_TOKEN_PREFIX, EksTokenSource, stsHostname } from '../../../../lambdas/kube';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const signingDate = new Date('2026-11-30T09:00:00Z');

function decode(token: string): URL {
  return new URL(Buffer.from(token.slice(EKS_TOKEN_PREFIX.length), 'base64url').toString('utf8'));
}

describe('createEksToken', () => {
  it('is the k8s-aws-v1 prefix plus unpadded base64url', async () => {
    const token = await createEksToken({ clusterName: 'prod-gpu', region: 'eu-west-1', credentials, signingDate });
    expect(token.startsWith('k8s-aws-v1.')).toBe(true);
    const body = token.slice(EKS_TOKEN_PREFIX.length);
    expect(body).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(body).not.toContain('=');
  });

  it('encodes a presigned regional STS GetCallerIdentity URL that signs x-k8s-aws-id', async () => {
    const token = await createEksToken({ clusterName: 'prod-gpu', region: 'eu-west-1', credentials, signingDate });
    const url = decode(token);
    expect(url.protocol).toBe('https:');
    expect(url.hostname).toBe('sts.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/');
    const q = url.searchParams;
    expect(q.get('Action')).toBe('GetCallerIdentity');
    expect(q.get('Version')).toBe('2011-06-15');
    expect(q.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(q.get('X-Amz-Credential')).toBe('AKIDEXAMPLE/20261130/eu-west-1/sts/aws4_request');
    expect(q.get('X-Amz-Date')).toBe('20261130T090000Z');
    expect(q.get('X-Amz-Expires')).toBe('60');
    expect(q.get('X-Amz-SignedHeaders')?.split(';')).toEqual(['host', 'x-k8s-aws-id']);
    expect(q.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('binds the signature to the cluster name and the signing time', async () => {
    const a = decode(await createEksToken({ clusterName: 'a', region: 'us-east-1', credentials, signingDate }));
    const b = decode(await createEksToken({ clusterName: 'b', region: 'us-east-1', credentials, signingDate }));
    const later = decode(
      await createEksToken({ clusterName: 'a', region: 'us-east-1', credentials, signingDate: new Date(signingDate.getTime() + 1000) }),
    );
    expect(a.searchParams.get('X-Amz-Signature')).not.toBe(b.searchParams.get('X-Amz-Signature'));
    expect(a.searchParams.get('X-Amz-Signature')).not.toBe(later.searchParams.get('X-Amz-Signature'));
  });

  it('carries a session token for temporary (Lambda role) credentials, escaped', async () => {
    const sessionToken = 'IQoJb3JpZ2luX2VjE+/abc==';
    const url = decode(
      await createEksToken({ clusterName: 'c', region: 'us-east-1', credentials: { ...credentials, sessionToken }, signingDate }),
    );
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe(sessionToken);
    expect(url.search).toContain('X-Amz-Security-Token=IQoJb3JpZ2luX2VjE%2B%2Fabc%3D%3D');
  });

  it('uses the China partition host in cn- regions', () => {
    expect(stsHostname('cn-north-1')).toBe('sts.cn-north-1.amazonaws.com.cn');
    expect(stsHostname('ap-southeast-2')).toBe('sts.ap-southeast-2.amazonaws.com');
  });
});

describe('EksTokenSource', () => {
  it('reuses the token until refreshAfterMs, then signs a new one', async () => {
    let now = signingDate.getTime();
    const source = new EksTokenSource({ clusterName: 'c', region: 'us-east-1', credentials, refreshAfterMs: 600_000, now: () => now });
    const first = await source.token();
    now += 599_000;
    expect(await source.token()).toBe(first);
    now += 2_000;
    const second = await source.token();
    expect(second).not.toBe(first);
    expect(decode(second).searchParams.get('X-Amz-Date')).toBe('20261130T091001Z');
  });

  it('never reuses a token past its 15-minute validity even if asked to', async () => {
    let now = signingDate.getTime();
    const source = new EksTokenSource({ clusterName: 'c', region: 'us-east-1', credentials, refreshAfterMs: 3_600_000, now: () => now });
    const first = await source.token();
    now += 15 * 60_000;
    expect(await source.token()).not.toBe(first);
  });

  it('shares one signing between concurrent callers', async () => {
    let calls = 0;
    const source = new EksTokenSource({
      clusterName: 'c',
      region: 'us-east-1',
      credentials: async () => {
        calls += 1;
        return credentials;
      },
    });
    const tokens = await Promise.all([source.token(), source.token(), source.token()]);
    expect(new Set(tokens).size).toBe(1);
    expect(calls).toBe(1);
  });
});
