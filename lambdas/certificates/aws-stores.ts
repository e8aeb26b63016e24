// What the rotation reads and writes in AWS: the trust store's CA bundle and
// a small state object in S3, the server certificate in ACM (imported, so its
// key never leaves ACM again), and the trust store's pointer to the bundle.
import { expectOk, type AwsCall } from './aws-signed-request';

export interface BundleStore {
  /** The object's text, or undefined when it does not exist. */
  get(key: string): Promise<string | undefined>;
  /** Writes the object; returns its S3 version id (the bucket is versioned). */
  put(key: string, text: string): Promise<string>;
}

/** `pathStyle`: the bucket in the path, as a custom endpoint (moto_server) needs; virtual-hosted otherwise. */
export function s3BundleStore(call: AwsCall, region: string, bucket: string, pathStyle = false): BundleStore {
  const hostname = pathStyle ? `s3.${region}.amazonaws.com` : `${bucket}.s3.${region}.amazonaws.com`;
  const path = (key: string): string => `${pathStyle ? `/${bucket}` : ''}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    async get(key) {
      const response = await call({ service: 's3', method: 'GET', hostname, path: path(key) });
      if (response.status === 404) return undefined;
      return expectOk(`S3 GetObject s3://${bucket}/${key}`, response).body;
    },
    async put(key, text) {
      const response = expectOk(
        `S3 PutObject s3://${bucket}/${key}`,
        await call({ service: 's3', method: 'PUT', hostname, path: path(key), headers: { 'content-type': 'application/x-pem-file' }, body: text }),
      );
      return response.headers['x-amz-version-id'] ?? '';
    },
  };
}

export interface ServerCertificateStore {
  /** Imports the certificate (re-imports in place when `arn` is given); returns its ARN. */
  importCertificate(certificatePem: string, privateKeyPem: string, chainPem: string, arn: string | undefined): Promise<string>;
  deleteCertificate(arn: string): Promise<void>;
}

export function acmCertificateStore(call: AwsCall, region: string, tags: Readonly<Record<string, string>>): ServerCertificateStore {
  const hostname = `acm.${region}.amazonaws.com`;
  const acm = (target: string, payload: unknown) =>
    call({
      service: 'acm',
      method: 'POST',
      hostname,
      path: '/',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `CertificateManager.${target}` },
      body: JSON.stringify(payload),
    });
  const blob = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');
  return {
    async importCertificate(certificatePem, privateKeyPem, chainPem, arn) {
      const response = expectOk(
        'ACM ImportCertificate',
        await acm('ImportCertificate', {
          Certificate: blob(certificatePem),
          PrivateKey: blob(privateKeyPem),
          CertificateChain: blob(chainPem),
          ...(arn === undefined ? { Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) } : { CertificateArn: arn }),
        }),
      );
      const imported = (JSON.parse(response.body) as { CertificateArn?: unknown }).CertificateArn;
      if (typeof imported !== 'string') throw new Error('ACM ImportCertificate answered without a CertificateArn');
      return imported;
    },
    async deleteCertificate(arn) {
      const response = await acm('DeleteCertificate', { CertificateArn: arn });
      if (response.status === 400 && /ResourceNotFoundException/.test(response.body)) return;
      expectOk('ACM DeleteCertificate', response);
    },
  };
}

/** Points the trust store at a new version of its CA bundle. */
export async function modifyTrustStore(call: AwsCall, region: string, trustStoreArn: string, bucket: string, key: string, version: string): Promise<void> {
  const form = new URLSearchParams({
    Action: 'ModifyTrustStore',
    Version: '2015-12-01',
    TrustStoreArn: trustStoreArn,
    CaCertificatesBundleS3Bucket: bucket,
    CaCertificatesBundleS3Key: key,
    ...(version === '' ? {} : { CaCertificatesBundleS3ObjectVersion: version }),
  });
  expectOk(
    'ELB ModifyTrustStore',
    await call({
      service: 'elasticloadbalancing',
      method: 'POST',
      hostname: `elasticloadbalancing.${region}.amazonaws.com`,
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: form.toString(),
    }),
  );
}
