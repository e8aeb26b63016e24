// The Configuration (config.kueue.x-k8s.io/v1beta2) the local Kueue runs with.
import { KUEUE_NAMESPACE, KUEUE_WEBHOOK_SECRET, KUEUE_WEBHOOK_SERVICE } from './kueue-webhooks';

export interface WaitForPodsReadyOptions {
  /** How long an admitted workload may take to have all its pods Ready before Kueue evicts and requeues it (e.g. `5m`). */
  timeout: string;
  /** Admit nothing else in the cluster while an admitted workload's pods are not all Ready. */
  blockAdmission: boolean;
}

export interface KueueConfigOptions {
  healthPort: number;
  metricsPort: number;
  webhookHost: string;
  webhookPort: number;
  certDir: string;
  waitForPodsReady?: WaitForPodsReadyOptions;
}

export function kueueConfiguration(options: KueueConfigOptions): object {
  return {
    apiVersion: 'config.kueue.x-k8s.io/v1beta2',
    kind: 'Configuration',
    namespace: KUEUE_NAMESPACE,
    health: { healthProbeBindAddress: `127.0.0.1:${options.healthPort}` },
    metrics: { bindAddress: `127.0.0.1:${options.metricsPort}` },
    webhook: { host: options.webhookHost, port: options.webhookPort, certDir: options.certDir },
    leaderElection: { leaderElect: false },
    // As the Helm chart installs it: Kueue issues the webhook certificate and injects its CA.
    internalCertManagement: { enable: true, webhookServiceName: KUEUE_WEBHOOK_SERVICE, webhookSecretName: KUEUE_WEBHOOK_SECRET },
    // Only Jobs that name a LocalQueue are Kueue's; every other workload of the cluster is left alone.
    manageJobsWithoutQueueName: false,
    integrations: { frameworks: ['batch/job'] },
    ...(options.waitForPodsReady && {
      waitForPodsReady: { timeout: options.waitForPodsReady.timeout, blockAdmission: options.waitForPodsReady.blockAdmission },
    }),
    // The visibility API server would bind a fixed port on every interface; nothing here reads it.
    featureGates: { VisibilityOnDemand: false },
  };
}
