// Signed calls to the three AWS APIs the certificate rotation uses (S3, ACM,
// Elastic Load Balancing), with SigV4 from @smithy/signature-v4, which the
// project already ships for EKS tokens: the Lambda bundles no further SDK client.
import { request as httpRequest } from 'node:http';
import { request } from 'node:https';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

export interface SignedRequest {
  readonly service: 's3' | 'acm' | 'elasticloadbalancing';
  readonly method: 'GET' | 'PUT' | 'POST';
  readonly hostname: string;
  /** The path, without a query string (that goes in `query`, so it is signed as one). */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface SignedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type AwsCall = (call: SignedRequest) => Promise<SignedResponse>;

/**
 * An AwsCall for `region` with credentials from `credentials` (the Lambda
 * role's). `endpoint` (AWS_ENDPOINT_URL, e.g. moto_server in tests) sends
 * every call there instead of the service's own host.
 */
export function awsCaller(region: string, credentials: AwsCredentialIdentityProvider, endpoint?: string): AwsCall {
  const target = endpoint === undefined ? undefined : new URL(endpoint);
  return async (call) => {
    const signer = new SignatureV4({ credentials, region, service: call.service, sha256: Sha256, uriEscapePath: call.service !== 's3', applyChecksum: true });
    const body = call.body ?? '';
    const hostname = target?.hostname ?? call.hostname;
    const host = target?.host ?? call.hostname;
    const signed = await signer.sign({
      method: call.method,
      protocol: target?.protocol ?? 'https:',
      hostname,
      path: call.path,
      ...(call.query === undefined ? {} : { query: { ...call.query } }),
      headers: { host, ...call.headers, ...(body === '' ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      body,
    });
    const send = target?.protocol === 'http:' ? httpRequest : request;
    const port = target?.port === undefined || target.port === '' ? undefined : Number(target.port);
    const search = call.query === undefined ? '' : `?${new URLSearchParams(call.query).toString()}`;
    return new Promise((resolve, reject) => {
      const req = send({ method: call.method, hostname, ...(port === undefined ? {} : { port }), path: `${call.path}${search}`, headers: signed.headers, timeout: 30_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers[name] = value;
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${call.service} ${call.method} ${call.path}: no answer in 30 s`)));
      req.on('error', reject);
      req.end(body);
    });
  };
}

/** Throws with the service's own message unless the status is 2xx. Never includes the request body (it may hold a key). */
export function expectOk(what: string, response: SignedResponse): SignedResponse {
  if (response.status < 200 || response.status > 299) throw new Error(`${what} failed: HTTP ${response.status}: ${response.body.slice(0, 500)}`);
  return response;
}
