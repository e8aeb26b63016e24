import { errorMessage } from '../common/error-message';
import type { Env } from '../env';
import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createExtenderProfile } from '../scheduling';
import type { ClusterCache } from '../cluster-state/cluster-cache';
import { TtlClusterCache } from '../cluster-state/cluster-cache';
import { kubernetesClusterSource } from '../cluster-state/kubernetes-cluster-source';
import type { KubeConnection } from '../kube/kube-http-client';
import { extenderConfigFromEnv } from './config';
import type { ExtenderObserver } from './observer';
import { telemetryObserver } from './observer';
import type { Router } from './router';
import { createRouter } from './router';

/** What the extender's handler runs on, built once per container. */
export interface ExtenderDeps {
  readonly router: Router;
  /** The cluster cache, when the extender has cluster access. */
  readonly cache: ClusterCache | undefined;
}

export interface ExtenderOverrides {
  /** Replaces the Kubernetes-backed cache (benchmarks, tests). */
  readonly cache?: ClusterCache;
  /**
   * The API server to list and watch, in place of the EKS cluster that
   * CLUSTER_NAME names: local hosts pass the connection of a kubeconfig file
   * (local/control-plane/kubeconfig-connection.ts). Gives the extender cluster access.
   */
  readonly kubeConnection?: () => Promise<KubeConnection>;
  readonly observer?: ExtenderObserver;
}

/**
 * The one place the extender's dependencies are built from its environment:
 * configuration, the cluster cache over the Kubernetes API (the EKS cluster
 * of CLUSTER_NAME, or the injected connection), the profile and the router.
 * Throws a ConfigError naming the variable on bad configuration.
 */
export function wireExtender(env: Env, telemetry: Telemetry, overrides: ExtenderOverrides = {}): ExtenderDeps {
  const config = extenderConfigFromEnv(env);
  const observer = overrides.observer ?? telemetryObserver(telemetry);
  const connection = overrides.kubeConnection ?? (config.clusterAccess ? () => eksConnection(env) : undefined);
  const cache =
    overrides.cache ??
    (connection !== undefined
      ? new TtlClusterCache(
          kubernetesClusterSource(connection, {
            pageSize: config.listPageSize,
            ...(config.nodeLabelSelector ? { nodeLabelSelector: config.nodeLabelSelector } : {}),
            onRelist: (collection, reason) => {
              observer.warn('cluster cache re-listed: its watch could not resume', { collection, reason });
              telemetry.record(METRIC.clusterCacheRelists, 1, { Collection: collection });
            },
          }),
          {
            ttlMs: config.cacheTtlMs,
            maxStaleMs: config.cacheMaxStaleMs,
            onBackgroundError: (error) => observer.warn('background cluster cache refresh failed', { error: errorMessage(error) }),
          },
        )
      : undefined);
  const router = createRouter({ profile: createExtenderProfile(config.profile), cache, observer, basePath: config.basePath });
  return { router, cache };
}

/**
 * The EKS connection (the AWS SDK's credential chain, STS signing and EKS
 * client) is loaded on the first refresh: without code splitting esbuild
 * inlines the import() into the one bundle, but evaluates the module, and
 * what only it imports, when it is called, which keeps the SDK's module
 * setup out of the cold start (docs/extender.md, "One bundle").
 */
async function eksConnection(env: Env): Promise<KubeConnection> {
  const { kubeConnectionFromEnvironment } = await import('../kube/kube-connection');
  return kubeConnectionFromEnvironment(env);
}
