// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the local
// kube-scheduler. Extenders are global in that API (shared by every profile),
// so the GPU scheduler runs as its own process with only the gpu-scheduler
// profile, exactly like the second scheduler deployed on EKS.
import { stringify } from 'yaml';
import { APP_CONFIG_DEFAULTS } from '../cdk/app-config/app-config-defaults';
import { extenderConfiguration, gpuSchedulerProfile, type ExtenderTlsFiles } from '../cdk/lib/scheduler/second-scheduler-manifests';

export const GPU_SCHEDULER_NAME = 'gpu-scheduler';

export interface ExtenderSettings {
  /** e.g. http://127.0.0.1:4321 — the scheduler POSTs to `<urlPrefix>/<verb>`. */
  urlPrefix: string;
  nodeCacheCapable: boolean;
  /** false: a failing extender fails the scheduling attempt (pods stay Pending). */
  ignorable?: boolean;
  /** Default: the deployed default (cdk/app-config), which the score composition is designed for. */
  weight?: number;
  /** undefined: no preempt verb. */
  preemptVerb?: 'preempt';
  httpTimeout?: string;
  /** Mutual TLS: the client certificate the scheduler presents and the CAs it trusts (local/extender-mtls.ts). */
  tlsConfig?: ExtenderTlsFiles;
}

/**
 * The extender settings the deployed second scheduler gets (cdk/app-config
 * defaults: NodeNames mode, weight, ignorable, timeout, preempt), so a test
 * that runs "as deployed" cannot drift from the deployment.
 */
export function deployedExtenderSettings(urlPrefix: string): ExtenderSettings {
  const deployed = APP_CONFIG_DEFAULTS.scheduler.extender;
  return {
    urlPrefix,
    nodeCacheCapable: true,
    ignorable: deployed.ignorable,
    weight: deployed.weight,
    ...(deployed.preempt ? { preemptVerb: 'preempt' as const } : {}),
    httpTimeout: `${deployed.httpTimeoutSeconds}s`,
  };
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
  if (extender) {
    config.extenders = [
      extenderConfiguration({
        urlPrefix: extender.urlPrefix,
        https: extender.urlPrefix.startsWith('https:'),
        preempt: extender.preemptVerb !== undefined,
        weight: extender.weight ?? APP_CONFIG_DEFAULTS.scheduler.extender.weight,
        nodeCacheCapable: extender.nodeCacheCapable,
        httpTimeout: extender.httpTimeout ?? '5s',
        ignorable: extender.ignorable ?? false,
        ...(extender.tlsConfig ? { tlsConfig: extender.tlsConfig } : {}),
      }),
    ];
  }
  return stringify(config);
}
