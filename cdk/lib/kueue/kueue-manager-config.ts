// The parts of Kueue's controller-manager Configuration
// (config.kueue.x-k8s.io/v1beta2) that matter for GPU jobs under
// gpu-scheduler. The stack's chart values and the local harness's Kueue
// (local/addons/kueue-config.ts, which adds its ports and certificate directory)
// start from the same object.
import type { KubernetesObject } from '../common/kubernetes-object';

export interface KueueManagerConfigProps {
  /**
   * How long an admitted workload may take to have all its pods Ready before
   * Kueue evicts it, releases its GPUs and requeues it (e.g. `10m`): what takes
   * back a job that started only in part.
   */
  readonly podsReadyTimeout: string;
  /** Admit nothing else while an admitted workload's pods are not all Ready (jobs start one at a time, whole). */
  readonly blockAdmission: boolean;
}

export function kueueManagerConfig(props: KueueManagerConfigProps): KubernetesObject {
  if (!/^\d+(?:\.\d+)?(?:ms|s|m|h)$/.test(props.podsReadyTimeout)) throw new Error(`podsReadyTimeout "${props.podsReadyTimeout}" is not a duration such as 30s or 10m`);
  return {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    // Only workloads that name a LocalQueue are Kueue's: every other pod of the cluster is left alone.
    manageJobsWithoutQueueName: false,
    // Jobs (batch/v1) and what is built on them (JobSet, Kubeflow's trainers) go through Kueue; plain pods do not.
    integrations: { frameworks: ['batch/job'] },
    waitForPodsReady: { timeout: props.podsReadyTimeout, blockAdmission: props.blockAdmission },
  };
}
