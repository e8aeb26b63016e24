import type { Env } from '../env';
import { envInt, envOptionalString, envString } from '../env';

/** Where the second scheduler's replicas are and how to reach their /metrics. */
export interface SchedulerMetricsConfig {
  readonly namespace: string;
  /** Label selector of its pods (the Deployment's selector, cdk/lib/scheduler/second-scheduler-manifests.ts). */
  readonly podSelector: string;
  /** Its profile (schedulerName), the `profile` label of its per-profile series. */
  readonly profile: string;
  /** kube-scheduler's secure port (HTTPS). */
  readonly port: number;
}

/** The label the second scheduler's Deployment selects its pods by. */
export const SCHEDULER_NAME_LABEL = 'app.kubernetes.io/name';

const KUBE_NAME = { pattern: /[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?/, description: 'a Kubernetes name (DNS label)' };

/**
 * SCHEDULER_NAMESPACE turns the step on (the CDK app sets it from its
 * scheduler config); undefined when it is unset. GPU_SCHEDULER_NAME is the
 * second scheduler's name: its Deployment's, its pods' label and its profile's
 * (one value in the CDK app's scheduler config), as the outcome metrics read it.
 */
export function schedulerMetricsConfigFromEnv(env: Env): SchedulerMetricsConfig | undefined {
  if (envOptionalString(env, 'SCHEDULER_NAMESPACE') === undefined) return undefined;
  const name = envString(env, 'GPU_SCHEDULER_NAME', { default: 'gpu-scheduler', ...KUBE_NAME });
  return {
    namespace: envString(env, 'SCHEDULER_NAMESPACE', KUBE_NAME),
    podSelector: `${SCHEDULER_NAME_LABEL}=${name}`,
    profile: name,
    port: envInt(env, 'SCHEDULER_METRICS_PORT', { default: 10259, min: 1, max: 65535 }),
  };
}
