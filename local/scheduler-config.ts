// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) for the local
// kube-scheduler. Extenders are global in that API (shared by every profile),
// so the GPU scheduler runs as its own process with only the gpu-scheduler
// profile, exactly like the second scheduler deployed on EKS.
import { stringify } from 'yaml';
import { GPU_PROFILE_PLUGINS } from '../cdk/lib/scheduler/second-scheduler-manifests';

export const GPU_SCHEDULER_NAME = 'gpu-scheduler';
export const GPU_RESOURCE = 'nvidia.com/gpu';

export interface ExtenderSettings {
  /** e.g. http://127.0.0.1:4321 — the scheduler POSTs to `<urlPrefix>/<verb>`. */
  urlPrefix: string;
  nodeCacheCapable: boolean;
  /** false: a failing extender fails the scheduling attempt (pods stay Pending). */
  ignorable?: boolean;
  weight?: number;
  filterVerb?: string;
  prioritizeVerb?: string;
  /** undefined: no preempt verb. */
  preemptVerb?: string;
  httpTimeout?: string;
}

export interface SchedulerConfigInput {
  kubeconfig: string;
  profiles: string[];
  extender?: ExtenderSettings;
}

export function schedulerConfiguration({ kubeconfig, profiles, extender }: SchedulerConfigInput): string {
  const config: Record<string, unknown> = {
    apiVersion: 'kubescheduler.config.k8s.io/v1',
    kind: 'KubeSchedulerConfiguration',
    clientConnection: { kubeconfig, qps: 100, burst: 200 },
    leaderElection: { leaderElect: false },
    // A scheduler with the extender runs the deployed gpu-scheduler profile
    // (spreading in-tree scores off), so local placements match EKS.
    profiles: profiles.map((schedulerName) => (extender ? { schedulerName, plugins: GPU_PROFILE_PLUGINS } : { schedulerName })),
  };
  if (extender) {
    config.extenders = [
      {
        urlPrefix: extender.urlPrefix,
        filterVerb: extender.filterVerb ?? 'filter',
        prioritizeVerb: extender.prioritizeVerb ?? 'prioritize',
        ...(extender.preemptVerb ? { preemptVerb: extender.preemptVerb } : {}),
        weight: extender.weight ?? 1,
        enableHTTPS: extender.urlPrefix.startsWith('https:'),
        nodeCacheCapable: extender.nodeCacheCapable,
        // As deployed: only GPU pods go to the extender, and the scheduler
        // still counts GPUs itself (its count includes pods it has assumed
        // but not yet bound, which the extender's cache may not show yet).
        managedResources: [{ name: GPU_RESOURCE, ignoredByScheduler: false }],
        ignorable: extender.ignorable ?? false,
        httpTimeout: extender.httpTimeout ?? '5s',
      },
    ];
  }
  return stringify(config);
}
