// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the local
// kube-scheduler. Extenders are global in that API (shared by every profile),
// so the GPU scheduler runs as its own process with only the gpu-scheduler
// profile, exactly like the second scheduler deployed on EKS.
import { stringify } from 'yaml';
import { APP_CONFIG_DEFAULTS } from '../cdk/app-config/app-config-defaults';
import { extenderConfiguration, type ExtenderSettings } from '../cdk/lib/scheduler/extender-configuration';
import { gpuSchedulerProfile } from '../cdk/lib/scheduler/second-scheduler-manifests';

export type { ExtenderSettings } from '../cdk/lib/scheduler/extender-configuration';

export const GPU_SCHEDULER_NAME = 'gpu-scheduler';

/**
 * The extender settings the deployed second scheduler gets (the config's
 * defaults: weight, ignorable, timeout, preempt; node names only), so a test
 * that runs "as deployed" cannot drift from the deployment.
 */
export function deployedExtenderSettings(urlPrefix: string): ExtenderSettings {
  return { ...APP_CONFIG_DEFAULTS.scheduler.extender, urlPrefix };
}

export interface SchedulerConfigInput {
  kubeconfig: string;
  profiles: string[];
  extender?: ExtenderSettings;
  /**
   * Run the deployed gpu-scheduler profile. Default: with an extender. Set
   * without one to measure the same scheduler minus the extender (npm run bench).
   */
  gpuProfile?: boolean;
  /** kube-scheduler's API client rate limit; default qps 100, burst 200. It bounds binds per second. */
  clientRateLimit?: { qps: number; burst: number };
}

export function schedulerConfiguration({
  kubeconfig,
  profiles,
  extender,
  gpuProfile = extender !== undefined,
  clientRateLimit = { qps: 100, burst: 200 },
}: SchedulerConfigInput): string {
  const config: Record<string, unknown> = {
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig, ...clientRateLimit },
    leaderElection: { leaderElect: false },
    // A scheduler with the extender runs the deployed gpu-scheduler profile
    // (in-tree scores without intent off, no default spreading), so local placements match EKS.
    profiles: profiles.map((schedulerName) => (gpuProfile ? gpuSchedulerProfile(schedulerName) : { schedulerName })),
  };
  if (extender) config.extenders = [extenderConfiguration(extender)];
  return stringify(config);
}
