import { defaultProvider } from '@aws-sdk/credential-provider-node';
import type { Env } from '../env';
import { envString } from '../env';
import { EksTokenSource } from './eks-token-source';

/*
 * What both EKS connection paths share (the client-node KubeConfig and the
 * lean HTTP client). No client-node import here, so the extender bundle stays
 * small.
 */

/** EKS cluster names: 1-100 chars, alphanumerics, hyphens and underscores, starting alphanumeric. */
export const CLUSTER_NAME_PATTERN = /[0-9A-Za-z][A-Za-z0-9\-_]{0,99}/;

export function clusterNameFromEnv(env: Env): string {
  return envString(env, 'CLUSTER_NAME', {
    pattern: CLUSTER_NAME_PATTERN,
    description: 'an EKS cluster name (letters, digits, - and _)',
  });
}

/** One token source per cluster and region for the warm container, so every invocation reuses the token. */
const tokenSources = new Map<string, EksTokenSource>();

export function eksTokenSourceFor(clusterName: string, region: string): EksTokenSource {
  const key = `${region}/${clusterName}`;
  let source = tokenSources.get(key);
  if (!source) {
    source = new EksTokenSource({ clusterName, region, credentials: defaultProvider() });
    tokenSources.set(key, source);
  }
  return source;
}
