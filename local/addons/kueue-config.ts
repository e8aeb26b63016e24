// The Configuration (config.kueue.x-k8s.io/v1beta2) the local Kueue runs with:
// the stack's (cdk/lib/kueue/kueue-manager-config.ts) plus what a pod would get
// from the chart and its Deployment (namespace, ports, certificates).
import { kueueManagerConfig } from '../../cdk/lib/kueue/kueue-manager-config';
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
  const { waitForPodsReady, ...deployed } = kueueManagerConfig({
    podsReadyTimeout: options.waitForPodsReady?.timeout ?? '10m',
    blockAdmission: options.waitForPodsReady?.blockAdmission ?? false,
  });
  return {
    ...deployed,
    namespace: KUEUE_NAMESPACE,
    health: { healthProbeBindAddress: `127.0.0.1:${options.healthPort}` },
    metrics: { bindAddress: `127.0.0.1:${options.metricsPort}` },
    webhook: { host: options.webhookHost, port: options.webhookPort, certDir: options.certDir },
    leaderElection: { leaderElect: false },
    // As the Helm chart installs it: Kueue issues the webhook certificate and injects its CA.
    internalCertManagement: { enable: true, webhookServiceName: KUEUE_WEBHOOK_SERVICE, webhookSecretName: KUEUE_WEBHOOK_SECRET },
    // Off unless the file asks for it: a file that runs no pods to Ready would see its workloads evicted.
    ...(options.waitForPodsReady && { waitForPodsReady }),
    // The visibility API server would bind a fixed port on every interface; nothing here reads it.
    featureGates: { VisibilityOnDemand: false },
  };
}
