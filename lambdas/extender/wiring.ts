import { errorMessage } from '../common/error-message';
import type { Env } from '../env';
import type { Telemetry } from '../observability/telemetry';
import { createExtenderProfile } from '../scheduling';
import type { ClusterCache, ClusterSource } from './cluster-cache';
import { CLUSTER_MODEL } from './cluster-model';
import { TtlClusterCache } from './cluster-cache';
import { extenderConfigFromEnv } from './config';
import type { KubernetesClusterSourceOptions } from './kubernetes-cluster-source';
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
  readonly observer?: ExtenderObserver;
}

/**
 * The one place the extender's dependencies are built from its environment:
 * configuration, the cluster cache over the Kubernetes API, the profile and
 * the router. Throws a ConfigError naming the variable on bad configuration.
 */
export function wireExtender(env: Env, telemetry: Telemetry, overrides: ExtenderOverrides = {}): ExtenderDeps {
  const config = extenderConfigFromEnv(env);
  const observer = overrides.observer ?? telemetryObserver(telemetry);
  const cache =
    overrides.cache ??
    (config.clusterAccess
      ? new TtlClusterCache(
          lazyClusterSource(env, {
            pageSize: config.listPageSize,
            ...(config.nodeLabelSelector ? { nodeLabelSelector: config.nodeLabelSelector } : {}),
            onRelist: (collection, reason) => observer.warn('cluster cache re-listed: its watch could not resume', { collection, reason }),
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
 * The Kubernetes source, loaded on its first refresh (cluster-access.ts says
 * why). A failed load is retried on the next refresh, like a failed list.
 */
function lazyClusterSource(env: Env, options: KubernetesClusterSourceOptions): ClusterSource {
  let source: Promise<ClusterSource> | undefined;
  return {
    load() {
      if (source === undefined) {
        const pending = import('./cluster-access').then((access) => access.clusterSourceFromEnvironment(env, options, CLUSTER_MODEL));
        pending.catch(() => {
          if (source === pending) source = undefined;
        });
        source = pending;
      }
      return source.then((loaded) => loaded.load());
    },
  };
}
