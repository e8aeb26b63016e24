import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { awsClientConfigFromEnv } from '../aws/aws-client-config';
import { createEksClient } from '../aws/clients';
import type { Env } from '../env';
import { ConfigError, envOptionalString } from '../env';
import { describeClusterEndpoint } from './eks-cluster-endpoint';
import type { BearerTokenSource } from './eks-token-source';
import { clusterNameFromEnv, eksTokenSourceFor } from './eks-access';
import type { KubeConnection } from './kube-http-client';
import { isRecord } from '../scheduling/kube-json';
import { errorMessage } from '../common/error-message';

/*
 * Connection settings for the read-only HTTP client (kube-http-client.ts),
 * without @kubernetes/client-node. Imports stay file-level (not the ../kube
 * barrel) so a bundle that uses this does not pull client-node in.
 */

/**
 * - KUBECONFIG set: that file (local runs, tests). Its current context must
 *   use a bearer `token` (or `tokenFile`) and a pinned CA.
 * - Otherwise EKS: CLUSTER_NAME, the endpoint and CA from CLUSTER_ENDPOINT and
 *   CLUSTER_CA_DATA (the stack sets both), else from DescribeCluster, and a
 *   presigned-STS token with the function's credentials, cached and renewed.
 */
export async function kubeConnectionFromEnvironment(env: Env = process.env): Promise<KubeConnection> {
  const kubeconfigPath = envOptionalString(env, 'KUBECONFIG');
  if (kubeconfigPath !== undefined) {
    let text: string;
    try {
      text = await readFile(kubeconfigPath, 'utf8');
    } catch (error) {
      throw new ConfigError('KUBECONFIG', kubeconfigPath, `a readable kubeconfig file (${errorMessage(error)})`);
    }
    return kubeConnectionFromKubeconfig(text, kubeconfigPath);
  }

  const clusterName = clusterNameFromEnv(env);
  const aws = awsClientConfigFromEnv(env);
  const { server, caPem } = endpointFromEnv(env) ?? (await describeCluster(env, clusterName));
  return { server, caPem, tokens: eksTokenSourceFor(clusterName, aws.region) };
}

/** CLUSTER_ENDPOINT and CLUSTER_CA_DATA, both or neither. */
function endpointFromEnv(env: Env): { server: string; caPem: string } | undefined {
  const server = envOptionalString(env, 'CLUSTER_ENDPOINT');
  const caData = envOptionalString(env, 'CLUSTER_CA_DATA');
  if (server === undefined && caData === undefined) return undefined;
  if (server === undefined) throw new ConfigError('CLUSTER_ENDPOINT', undefined, 'the API server URL; set it together with CLUSTER_CA_DATA, or neither');
  if (caData === undefined) throw new ConfigError('CLUSTER_CA_DATA', undefined, 'the base64 cluster CA; set it together with CLUSTER_ENDPOINT, or neither');
  if (!isHttpsUrl(server)) throw new ConfigError('CLUSTER_ENDPOINT', server, 'an https URL such as https://ABC.gr7.us-east-1.eks.amazonaws.com');
  return { server, caPem: decodeCaData(caData, 'CLUSTER_CA_DATA') };
}

/**
 * Only when the stack did not pass the endpoint (an attached cluster, whose
 * endpoint the stack does not know). Static imports on purpose: a dynamic
 * import() makes esbuild bundle the whole module graph, EC2 client included.
 * The CA is taken as EKS returns it; a bad one fails the TLS handshake, which names it.
 */
async function describeCluster(env: Env, clusterName: string): Promise<{ server: string; caPem: string }> {
  const aws = awsClientConfigFromEnv(env);
  const endpoint = await describeClusterEndpoint(createEksClient(aws), clusterName, `${aws.region}/${clusterName}/${aws.endpoint ?? ''}`);
  return { server: endpoint.server, caPem: Buffer.from(endpoint.caData, 'base64').toString('utf8') };
}

/**
 * The current context of a kubeconfig as a connection. JSON is tried first
 * (it is YAML too, and needs no parser); YAML is parsed with `yaml`, loaded
 * only then. `path` is for messages and resolving relative file references.
 */
export async function kubeConnectionFromKubeconfig(text: string, path: string): Promise<KubeConnection> {
  const fail = (why: string) => new ConfigError('KUBECONFIG', path, `a kubeconfig whose current context uses token auth and a pinned CA: ${why}`);
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    try {
      const { parse } = await loadYaml();
      config = parse(text);
    } catch (error) {
      throw fail(`not JSON or YAML (${errorMessage(error)})`);
    }
  }
  if (!isRecord(config)) throw fail('not a kubeconfig object');

  const contextName = config['current-context'];
  if (typeof contextName !== 'string' || contextName === '') throw fail('no current-context');
  const context = named(config.contexts, contextName, 'context');
  if (!context) throw fail(`context "${contextName}" not found`);
  const clusterName = context.cluster;
  const userName = context.user;
  const cluster = typeof clusterName === 'string' ? named(config.clusters, clusterName, 'cluster') : undefined;
  if (!cluster) throw fail(`cluster "${String(clusterName)}" of context "${contextName}" not found`);
  const user = typeof userName === 'string' ? named(config.users, userName, 'user') : undefined;
  if (!user) throw fail(`user "${String(userName)}" of context "${contextName}" not found`);

  const server = cluster.server;
  if (typeof server !== 'string' || !isHttpsUrl(server)) throw fail(`cluster server ${JSON.stringify(server)} is not an https URL`);
  if (cluster['insecure-skip-tls-verify'] === true) throw fail('insecure-skip-tls-verify is not supported');
  const baseDir = dirname(resolve(path));
  let caPem: string;
  if (typeof cluster['certificate-authority-data'] === 'string') {
    caPem = decodeCaData(cluster['certificate-authority-data'], 'KUBECONFIG');
  } else if (typeof cluster['certificate-authority'] === 'string') {
    caPem = await readFile(resolve(baseDir, cluster['certificate-authority']), 'utf8').catch((error: Error) => {
      throw fail(`certificate-authority unreadable (${error.message})`);
    });
  } else {
    throw fail('the cluster has no certificate-authority-data or certificate-authority');
  }

  const unsupported = ['exec', 'auth-provider', 'client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'username', 'password'];
  const found = unsupported.filter((key) => user[key] !== undefined);
  if (found.length > 0) throw fail(`user "${userName}" uses ${found.join(', ')}, which this client does not support (use token or tokenFile)`);
  let tokens: BearerTokenSource;
  if (typeof user.token === 'string' && user.token !== '') {
    const token = user.token;
    tokens = { token: () => Promise.resolve(token) };
  } else if (typeof user.tokenFile === 'string') {
    const tokenFile = resolve(baseDir, user.tokenFile);
    // Re-read per request: projected service-account tokens are rotated in place.
    tokens = { token: async () => (await readFile(tokenFile, 'utf8')).trim() };
  } else {
    throw fail(`user "${userName}" has no token or tokenFile`);
  }
  return { server, caPem, tokens };
}

type YamlModule = typeof Yaml;

/**
 * `yaml` is ~115 KB minified, a quarter of the extender bundle, and only local
 * runs and tests read a YAML kubeconfig (the deployed Lambda never sets
 * KUBECONFIG). A specifier esbuild cannot see keeps it out of the bundle; where
 * node_modules exists (tsx, vitest, the local server) Node resolves it as usual.
 */
async function loadYaml(): Promise<YamlModule> {
  const specifier = 'yaml';
  try {
    return (await import(specifier)) as YamlModule;
  } catch (error) {
    throw new Error(`a YAML kubeconfig needs the yaml package, which this bundle leaves out; use a JSON kubeconfig (${errorMessage(error)})`);
  }
}

/** Base64 PEM, as kubeconfigs and DescribeCluster carry it. */
function decodeCaData(data: string, variable: string): string {
  const pem = Buffer.from(data, 'base64').toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(variable, `${data.slice(0, 20)}…`, 'base64 of a PEM CA certificate');
  return pem;
}

/** kubeconfig lists are `[{ name, <kind>: {...} }]`. */
function named(list: unknown, name: string, kind: string): Readonly<Record<string, unknown>> | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    const body: unknown = isRecord(entry) && entry.name === name ? entry[kind] : undefined;
    if (isRecord(body)) return body;
  }
  return undefined;
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}
