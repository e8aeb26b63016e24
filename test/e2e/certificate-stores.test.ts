// The rotation's AWS calls, signed by hand (lambdas/certificates/aws-signed-request.ts),
// against moto_server's S3 and ACM: the wire formats, the bucket's versions,
// an import and a re-import in place. (moto has no ELB trust stores, so
// ModifyTrustStore runs only on AWS.)
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsCaller } from '../../lambdas/certificates/aws-signed-request';
import { acmCertificateStore, s3BundleStore } from '../../lambdas/certificates/aws-stores';
import { DEFAULT_ROTATION_POLICY, newGeneration } from '../../lambdas/certificates/rotation';
import { e2eHarness } from './support/e2e-context';
import { awsClientConfig } from '../../local/aws/moto';

const harness = e2eHarness();
const aws = awsClientConfig(harness.info.motoUrl);
const call = awsCaller(aws.region, () => Promise.resolve(aws.credentials), aws.endpoint);
const bucket = `certificate-stores-${process.pid}`;

beforeAll(async () => {
  const created = await call({
    service: 's3',
    method: 'PUT',
    hostname: 's3.amazonaws.com',
    path: `/${bucket}`,
  });
  expect(created.status).toBe(200);
  const versioning = await call({
    service: 's3',
    method: 'PUT',
    hostname: 's3.amazonaws.com',
    path: `/${bucket}?versioning`,
    headers: { 'content-type': 'application/xml' },
    body: '<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>',
  });
  expect(versioning.status).toBe(200);
});

afterAll(() => undefined);

describe('certificate stores on moto', () => {
  it('S3: a missing object reads as undefined, each write gets a new version, the latest is read back', async () => {
    const store = s3BundleStore(call, aws.region, bucket, true);
    expect(await store.get('extender-mtls/client-ca-bundle.pem')).toBeUndefined();
    const first = await store.put('extender-mtls/client-ca-bundle.pem', 'one\n');
    const second = await store.put('extender-mtls/client-ca-bundle.pem', 'two\n');
    expect(first).not.toBe('');
    expect(second).not.toBe(first);
    expect(await store.get('extender-mtls/client-ca-bundle.pem')).toBe('two\n');
  });

  it('ACM: imports a generation\'s server certificate, re-imports in place under the same ARN, deletes it', async () => {
    const acm = acmCertificateStore(call, aws.region, { 'gpu-scheduling:purpose': 'test' });
    const now = new Date();
    const one = newGeneration(now, DEFAULT_ROTATION_POLICY, { dnsNames: ['internal-x.us-east-1.elb.amazonaws.com'] });
    const arn = await acm.importCertificate(one.server.certificatePem, one.server.privateKeyPem, one.serverCaPem, undefined);
    expect(arn).toMatch(/^arn:aws:acm:us-east-1:\d{12}:certificate\//);
    const two = newGeneration(now, DEFAULT_ROTATION_POLICY, { dnsNames: ['internal-x.us-east-1.elb.amazonaws.com'] });
    expect(await acm.importCertificate(two.server.certificatePem, two.server.privateKeyPem, two.serverCaPem, arn)).toBe(arn);
    const described = await call({
      service: 'acm',
      method: 'POST',
      hostname: 'acm.us-east-1.amazonaws.com',
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'CertificateManager.GetCertificate' },
      body: JSON.stringify({ CertificateArn: arn }),
    });
    const certificate = (JSON.parse(described.body) as { Certificate: string }).Certificate;
    expect(new X509Certificate(certificate).serialNumber).toBe(new X509Certificate(two.server.certificatePem).serialNumber);
    await acm.deleteCertificate(arn);
    // Deleting what is gone is not an error (a stack deleted twice).
    await acm.deleteCertificate(arn);
  });
});
