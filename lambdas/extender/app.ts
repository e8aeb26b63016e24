import type { Env } from '../env';
import { kubeConnectionFromEnvironment } from '../kube/kube-connection';
import { SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import { createExtenderProfile } from '../scheduling';
import type { ClusterCache } from './cluster-cache';
import { TtlClusterCache } from './cluster-cache';
import { extenderConfigFromEnv } from './config';
import { kubernetesClusterSource } from './kubernetes-cluster-source';
import type { ExtenderObserver } from './observer';
import { telemetryObserver } from './observer';
import type { Router } from './router';
import { createRouter } from './router';
import { errorMessage } from './verbs';

export interface ExtenderApp {
  readonly router: Router;
  readonly telemetry: Telemetry;
  /** The cluster cache, when the extender has cluster access. */
  readonly cache: ClusterCache | undefined;
}

/** Publishes buffered metrics, if any (an empty flush only logs a warning); never throws. */
export function flushTelemetry(telemetry: Telemetry): void {
  try {
    if (telemetry.metrics.hasStoredMetrics()) telemetry.flush();
  } catch {
    // Metrics are best effort; never fail a reply over them.
  }
}

export interface ExtenderAppOverrides {
  /** Replaces the Kubernetes-backed cache (benchmarks, tests). */
  readonly cache?: ClusterCache;
  readonly observer?: ExtenderObserver;
}

/**
 * Wires the extender from its environment. A configuration error does not
 * throw (it would crash the Lambda's cold start with no useful reply): the
 * router then answers every request with 500 and the error naming the variable.
 */
export function createExtenderApp(env: Env = process.env, overrides: ExtenderAppOverrides = {}): ExtenderApp {
  const telemetry = createTelemetry(SERVICE.extender);
  const observer = overrides.observer ?? telemetryObserver(telemetry);
  try {
    const config = extenderConfigFromEnv(env);
    const cache =
      overrides.cache ??
      (config.clusterAccess
        ? new TtlClusterCache(
            kubernetesClusterSource(() => kubeConnectionFromEnvironment(env), {
              pageSize: config.listPageSize,
              ...(config.nodeLabelSelector ? { nodeLabelSelector: config.nodeLabelSelector } : {}),
            }),
            {
              ttlMs: config.cacheTtlMs,
              maxStaleMs: config.cacheMaxStaleMs,
              onBackgroundError: (error) => observer.warn('background cluster cache refresh failed', { error: errorMessage(error) }),
            },
          )
        : undefined);
    const router = createRouter({ profile: createExtenderProfile(config.profile), cache, observer, basePath: config.basePath });
    return { router, telemetry, cache };
  } catch (error) {
    const message = `extender configuration error: ${errorMessage(error)}`;
    telemetry.logger.error(message);
    const router: Router = async () => ({ status: 500, body: { Error: message } });
    return { router, telemetry, cache: undefined };
  }
}
