// What the rotation reads and writes in AWS: the trust store's CA bundle and
// the rotation's record in S3, the server certificate in ACM (imported, so its
// key never leaves ACM again), and the trust store's pointer to the bundle.
import { expectOk, type AwsCall } from './aws-signed-request';

export interface BundleStore {
  /** The object's text (its latest version, or `version`), or undefined when it does not exist. */
  get(key: string, version?: string): Promise<string | undefined>;
  /** Writes the object; returns its S3 version id (the bucket is versioned). */
  put(key: string, text: string): Promise<string>;
}

/** `pathStyle`: the bucket in the path, as a custom endpoint (moto_server) needs; virtual-hosted otherwise. */
export function s3BundleStore(call: AwsCall, region: string, bucket: string, pathStyle = false): BundleStore {
  const hostname = pathStyle ? `s3.${region}.amazonaws.com` : `${bucket}.s3.${region}.amazonaws.com`;
  const path = (key: string): string => `${pathStyle ? `/${bucket}` : ''}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return {
    async get(key, version) {
      const response = await call({ service: 's3', method: 'GET', hostname, path: path(key), ...(version === undefined || version === '' ? {} : { query: { versionId: version } }) });
      if (response.status === 404) return undefined;
      return expectOk(`S3 GetObject s3://${bucket}/${key}${version === undefined ? '' : ` version ${version}`}`, response).body;
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

/** The certificate ACM serves for an ARN, as GetCertificate returns it (an imported key never comes back). */
export interface StoredCertificate {
  readonly certificatePem: string;
  readonly chainPem: string;
}

export interface ServerCertificateStore {
  /** Imports the certificate (re-imports in place when `arn` is given); returns its ARN. */
  importCertificate(certificatePem: string, privateKeyPem: string, chainPem: string, arn: string | undefined): Promise<string>;
  /** What the ARN holds now, or undefined when it does not exist. */
  readCertificate(arn: string): Promise<StoredCertificate | undefined>;
  /** `in-use`: a listener still serves it (ACM refuses), so it stays for a later attempt. */
  deleteCertificate(arn: string): Promise<'deleted' | 'in-use'>;
}

/** The tags of every certificate the rotation imports; the role may touch only certificates that carry them (cdk/lib/functions/extender-certificates.ts). */
export type CertificateTags = Readonly<Record<string, string>>;

export function acmCertificateStore(call: AwsCall, region: string, tags: CertificateTags): ServerCertificateStore {
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
  const notFound = (response: { status: number; body: string }): boolean => response.status === 400 && /ResourceNotFoundException/.test(response.body);
  return {
    async importCertificate(certificatePem, privateKeyPem, chainPem, arn) {
      const response = expectOk(
        'ACM ImportCertificate',
        await acm('ImportCertificate', {
          Certificate: blob(certificatePem),
          PrivateKey: blob(privateKeyPem),
          CertificateChain: blob(chainPem),
          // A re-import keeps the certificate's tags (and may not name any).
          ...(arn === undefined ? { Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) } : { CertificateArn: arn }),
        }),
      );
      const imported = (JSON.parse(response.body) as { CertificateArn?: unknown }).CertificateArn;
      if (typeof imported !== 'string') throw new Error('ACM ImportCertificate answered without a CertificateArn');
      return imported;
    },
    async readCertificate(arn) {
      const response = await acm('GetCertificate', { CertificateArn: arn });
      if (notFound(response)) return undefined;
      const body = JSON.parse(expectOk('ACM GetCertificate', response).body) as { Certificate?: unknown; CertificateChain?: unknown };
      if (typeof body.Certificate !== 'string') throw new Error('ACM GetCertificate answered without a Certificate');
      return { certificatePem: body.Certificate, chainPem: typeof body.CertificateChain === 'string' ? body.CertificateChain : '' };
    },
    async deleteCertificate(arn) {
      const response = await acm('DeleteCertificate', { CertificateArn: arn });
      if (notFound(response)) return 'deleted';
      if (response.status === 400 && /ResourceInUseException/.test(response.body)) return 'in-use';
      expectOk('ACM DeleteCertificate', response);
      return 'deleted';
    },
  };
}

/** The ALB's trust store: pointed at a version of its CA bundle, and waited for until it is active with it. */
export interface TrustStorePort {
  point(bundleVersion: string): Promise<void>;
}

export interface ElbTrustStoreOptions {
  readonly trustStoreArn: string;
  readonly bucket: string;
  readonly key: string;
  /** How long to wait for the trust store to be ACTIVE again after the change. */
  readonly activeWithinMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/** ModifyTrustStore to the new bundle version, then DescribeTrustStores until its status is ACTIVE. */
export function elbTrustStore(call: AwsCall, region: string, options: ElbTrustStoreOptions): TrustStorePort {
  const elb = async (what: string, parameters: Record<string, string>): Promise<string> => {
    const form = new URLSearchParams({ Version: '2015-12-01', ...parameters });
    const response = await call({
      service: 'elasticloadbalancing',
      method: 'POST',
      hostname: `elasticloadbalancing.${region}.amazonaws.com`,
      path: '/',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: form.toString(),
    });
    return expectOk(`ELB ${what}`, response).body;
  };
  const now = options.now ?? Date.now;
  return {
    async point(bundleVersion) {
      await elb('ModifyTrustStore', {
        Action: 'ModifyTrustStore',
        TrustStoreArn: options.trustStoreArn,
        CaCertificatesBundleS3Bucket: options.bucket,
        CaCertificatesBundleS3Key: options.key,
        ...(bundleVersion === '' ? {} : { CaCertificatesBundleS3ObjectVersion: bundleVersion }),
      });
      const deadline = now() + options.activeWithinMs;
      for (;;) {
        const body = await elb('DescribeTrustStores', { Action: 'DescribeTrustStores', 'TrustStoreArns.member.1': options.trustStoreArn });
        const status = /<Status>([A-Z_]+)<\/Status>/.exec(body)?.[1];
        if (status === 'ACTIVE') return;
        if (now() > deadline) {
          throw new Error(`trust store ${options.trustStoreArn} is ${status ?? 'of unknown status'} ${Math.round(options.activeWithinMs / 1000)} s after ModifyTrustStore; the scheduler keeps its certificate`);
        }
        await options.sleep(2_000);
      }
    },
  };
}
