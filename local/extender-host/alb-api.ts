// The local ALB's side of the AWS API, for the certificate rotation: an HTTP
// endpoint (AWS_ENDPOINT_URL of the rotation Lambda) in front of moto.
// - moto 5.2 implements no Elastic Load Balancing trust stores, so
//   ModifyTrustStore and DescribeTrustStores for the harness's one trust store
//   are answered here: the trust store then serves the bundle version it
//   names, read from moto's S3, on every attached listener (the ALB adapter's
//   mutual-TLS front). Every other call goes on to moto unchanged.
// - ACM never hands back an imported key, yet the ALB serves it: so the
//   ImportCertificate calls that pass through here are remembered (in this
//   process's memory only), and each attached listener serves what its
//   certificate ARN holds, as the ALB serves what ACM holds after a re-import.
import { randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { awsCaller } from '../../lambdas/certificates/aws-signed-request';
import { s3BundleStore } from '../../lambdas/certificates/aws-stores';
import { awsClientConfig } from '../aws/moto';
import type { AlbAdapter, AlbMutualTls } from './alb-adapter';
import { listenOnLoopback } from '../common/ports';

export interface LocalAlbApiOptions {
  /** moto_server (or a fault proxy in front of it). */
  readonly target: string;
  readonly region: string;
  /** Where the trust store's bundle lives. */
  readonly bucket: string;
  readonly key: string;
}

export interface LocalAlbApi {
  /** The endpoint the rotation Lambda calls for S3, ACM and ELB. */
  readonly url: string;
  readonly trustStoreArn: string;
  /** ModifyTrustStore calls answered (the versions, in order). */
  readonly trustStoreVersions: readonly string[];
  /** The listener's TLS as it would start now: the certificate `arn` holds and the trust store's bundle. */
  tlsFor(arn: string): Promise<AlbMutualTls>;
  /** `adapter`'s listener serves the certificate `arn` holds, from now on and after each re-import. */
  attach(adapter: AlbAdapter, arn: string): void;
  detach(adapter: AlbAdapter): void;
  stop(): Promise<void>;
}

interface Imported {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

export async function startLocalAlbApi(options: LocalAlbApiOptions): Promise<LocalAlbApi> {
  const target = new URL(options.target);
  const trustStoreArn = `arn:aws:elasticloadbalancing:${options.region}:123456789012:truststore/local-extender/${randomUUID().slice(0, 16)}`;
  const imported = new Map<string, Imported>();
  const listeners = new Map<AlbAdapter, string>();
  const versions: string[] = [];
  let status: 'ACTIVE' | 'CREATING' = 'ACTIVE';
  let activeVersion: string | undefined;

  // The ALB reads the bundle with its own rights: signed, as moto refuses anonymous reads of a private bucket.
  const aws = awsClientConfig(options.target);
  const bundles = s3BundleStore(awsCaller(options.region, () => Promise.resolve(aws.credentials), options.target), options.region, options.bucket, true);
  const readBundle = async (version: string | undefined): Promise<string> => {
    const bundle = await bundles.get(options.key, version);
    if (bundle === undefined) throw new Error(`the trust store's bundle s3://${options.bucket}/${options.key}${version === undefined ? '' : ` version ${version}`} does not exist`);
    return bundle;
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, onAnswer?: (status: number, answer: Buffer) => Promise<void>): void => {
    const out = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const text = Buffer.concat(chunks);
        void (onAnswer?.(answer.statusCode ?? 502, text) ?? Promise.resolve()).finally(() => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(text);
        });
      });
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };

  const elbAnswer = (res: ServerResponse, action: string, result: string): void => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(
      `<${action}Response xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>`,
    );
  };
  const trustStoreXml = (): string =>
    `<TrustStores><member><Name>local-extender</Name><TrustStoreArn>${trustStoreArn}</TrustStoreArn><Status>${status}</Status></member></TrustStores>`;

  const pointTrustStore = async (version: string | undefined): Promise<void> => {
    const bundle = await readBundle(version);
    await Promise.all([...listeners.keys()].map((adapter) => adapter.updateTls({ clientCaBundle: bundle })));
    activeVersion = version;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(req.headers.authorization ?? '')?.[1];
    if (scope === 'elasticloadbalancing') {
      const form = new URLSearchParams(body.toString('utf8'));
      const action = form.get('Action') ?? '';
      if (action === 'DescribeTrustStores' || action === 'ModifyTrustStore') {
        const asked = action === 'ModifyTrustStore' ? form.get('TrustStoreArn') : form.get('TrustStoreArns.member.1');
        if (asked !== trustStoreArn) {
          res.writeHead(400, { 'content-type': 'text/xml' });
          res.end(`<ErrorResponse><Error><Type>Sender</Type><Code>TrustStoreNotFound</Code><Message>One or more trust stores not found</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`);
          return;
        }
        if (action === 'ModifyTrustStore') {
          const version = form.get('CaCertificatesBundleS3ObjectVersion') ?? undefined;
          versions.push(version ?? '');
          // As on AWS, the change is accepted at once and the trust store is active with it a moment later.
          status = 'CREATING';
          void pointTrustStore(version).then(() => {
            status = 'ACTIVE';
          });
        }
        elbAnswer(res, action, trustStoreXml());
        return;
      }
    }
    const targetHeader = req.headers['x-amz-target'];
    if (scope === 'acm' && targetHeader === 'CertificateManager.ImportCertificate') {
      const request = JSON.parse(body.toString('utf8')) as { Certificate: string; PrivateKey: string };
      const certificate: Imported = {
        certificatePem: Buffer.from(request.Certificate, 'base64').toString('utf8'),
        privateKeyPem: Buffer.from(request.PrivateKey, 'base64').toString('utf8'),
      };
      forward(req, res, body, async (answerStatus, answer) => {
        if (answerStatus !== 200) return;
        const arn = (JSON.parse(answer.toString('utf8')) as { CertificateArn: string }).CertificateArn;
        imported.set(arn, certificate);
        // The listeners that serve this ARN pick the new certificate up (before the caller hears back).
        await Promise.all([...listeners].filter(([, served]) => served === arn).map(([adapter]) => adapter.updateTls(certificate)));
      });
      return;
    }
    forward(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    trustStoreArn,
    trustStoreVersions: versions,
    async tlsFor(arn) {
      const certificate = imported.get(arn);
      if (certificate === undefined) throw new Error(`no certificate was imported under ${arn} through the local ALB API`);
      // A trust store is created from the bundle's latest version, then follows ModifyTrustStore.
      return { ...certificate, clientCaBundle: await readBundle(activeVersion) };
    },
    attach: (adapter, arn) => {
      listeners.set(adapter, arn);
    },
    detach: (adapter) => {
      listeners.delete(adapter);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
