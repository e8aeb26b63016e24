import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type * as Yaml from 'yaml';
import { errorMessage } from '../../lambdas/common/error-message';
import { ConfigError } from '../../lambdas/env';
import type { BearerTokenSource } from '../../lambdas/kube/eks-token-source';
import { decodeCaData, isHttpsUrl } from '../../lambdas/kube/kube-connection';
import type { KubeConnection } from '../../lambdas/kube/kube-http-client';
import { isRecord } from '../../lambdas/scheduling/kube-json';

/*
 * Connections to a kubeconfig's cluster, for the local hosts of the Lambdas (npm start, npm run
 * extender, the e2e tests, the benchmarks). The deployed Lambdas never read
 * one: they connect to the EKS cluster CLUSTER_NAME names
 * (lambdas/kube/kube-connection.ts), and a local host injects the connection
 * read here through each Lambda's wiring options (`kubeConnection`).
 */

/** The current context of the kubeconfig file at `path` (KUBECONFIG for a local tool), read when called. */
export async function kubeConnectionFromKubeconfigFile(path: string): Promise<KubeConnection> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ConfigError('KUBECONFIG', path, `a readable kubeconfig file (${errorMessage(error)})`);
  }
  return kubeConnectionFromKubeconfig(text, path);
}

/**
 * The current context of a kubeconfig as a connection: a bearer `token` (or
 * `tokenFile`) and a pinned CA, what the read-only HTTP client and the
 * Lambdas' KubeConfig (lambdas/kube/kube-config.ts, kubeConfigOf) take.
 * `path` is for messages and resolving relative file references.
 */
export async function kubeConnectionFromKubeconfig(text: string, path: string): Promise<KubeConnection> {
  const fail = (why: string) => new ConfigError('KUBECONFIG', path, `a kubeconfig whose current context uses token auth and a pinned CA: ${why}`);
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch {
    // Not JSON (which needs no parser): YAML, with the parser loaded only now,
    // so a host bundled with this (bench/perf/scale-container.ts) and given
    // JSON never evaluates it.
    try {
      const { parse } = (await import('yaml')) as typeof Yaml;
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

/** kubeconfig lists are `[{ name, <kind>: {...} }]`. */
function named(list: unknown, name: string, kind: string): Readonly<Record<string, unknown>> | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    const body: unknown = isRecord(entry) && entry.name === name ? entry[kind] : undefined;
    if (isRecord(body)) return body;
  }
  return undefined;
}

/**
 * The wiring option every Lambda's handler factory takes (the `createHandler`
 * its entry module exports) to talk to the cluster of this kubeconfig file
 * instead of the EKS cluster CLUSTER_NAME names. The file is read on the
 * handler's first connection, as the deployed Lambda calls DescribeCluster.
 */
export function kubeconfigOverrides(path: string): { readonly kubeConnection: () => Promise<KubeConnection> } {
  return { kubeConnection: () => kubeConnectionFromKubeconfigFile(path) };
}
