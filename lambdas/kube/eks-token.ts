import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

export const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** The header aws-iam-authenticator requires to be signed; its value is the cluster name. */
export const CLUSTER_ID_HEADER = 'x-k8s-aws-id';
/** What `aws eks get-token` sends; EKS accepts a token for 15 minutes after signing regardless. */
export const PRESIGN_EXPIRES_SECONDS = 60;
export const TOKEN_VALIDITY_MS = 15 * 60_000;

export interface EksTokenRequest {
  readonly clusterName: string;
  readonly region: string;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Signing time; defaults to now. */
  readonly signingDate?: Date;
}

/** The regional STS host (the global endpoint is legacy and not accepted in opt-in regions). */
export function stsHostname(region: string): string {
  return region.startsWith('cn-') ? `sts.${region}.amazonaws.com.cn` : `sts.${region}.amazonaws.com`;
}

/**
 * A bearer token for the EKS API server, as `aws eks get-token` makes it:
 * "k8s-aws-v1." + base64url(presigned STS GetCallerIdentity URL), padding
 * stripped. The API server's authenticator replays the URL against STS to
 * learn who we are, and checks the signed x-k8s-aws-id header names its cluster.
 */
export async function createEksToken(request: EksTokenRequest): Promise<string> {
  const hostname = stsHostname(request.region);
  const signer = new SignatureV4({
    credentials: request.credentials,
    region: request.region,
    service: 'sts',
    sha256: Sha256,
    uriEscapePath: true,
  });
  const presigned = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: hostname, [CLUSTER_ID_HEADER]: request.clusterName },
    },
    { expiresIn: PRESIGN_EXPIRES_SECONDS, ...(request.signingDate ? { signingDate: request.signingDate } : {}) },
  );
  const url = `https://${hostname}/?${formatQuery(presigned.query ?? {})}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url, 'utf8').toString('base64url');
}

function formatQuery(query: Record<string, string | (string | null)[] | null>): string {
  const parts: string[] = [];
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) parts.push(v === null || v === undefined ? rfc3986(key) : `${rfc3986(key)}=${rfc3986(v)}`);
  }
  return parts.join('&');
}

/** SigV4 canonicalises with RFC 3986 escaping; encodeURIComponent leaves !'()* alone. */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
