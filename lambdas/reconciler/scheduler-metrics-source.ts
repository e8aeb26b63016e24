import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { CoreV1Api } from '@kubernetes/client-node';
import type { SchedulerMetricsConfig } from './scheduler-metrics-config';

export interface SchedulerReplica {
  readonly name: string;
  /** Changes when the pod is replaced, so its counters start over. */
  readonly uid: string;
  readonly ready: boolean;
}

/** The second scheduler's replicas and their /metrics text. */
export interface SchedulerMetricsSource {
  listReplicas(): Promise<SchedulerReplica[]>;
  scrape(replica: SchedulerReplica): Promise<string>;
}

/**
 * Reads /metrics through the API server's pod proxy
 * (`/api/v1/namespaces/<ns>/pods/https:<pod>:<port>/proxy/metrics`): it needs
 * no network path from the Lambda to the pods and sends the pod none of our
 * credentials (the API server connects on its own, without a client
 * certificate), which is why our scheduler allows /metrics without
 * authorization (--authorization-always-allow-paths). RBAC: pods list and
 * pods/proxy get in the scheduler's namespace, the proxy narrowed by an
 * admission policy to its pods' port and /metrics
 * (cdk/lib/access/scheduler-metrics-rbac.ts).
 */
export function podProxySchedulerMetricsSource(kc: KubeConfig, config: SchedulerMetricsConfig): SchedulerMetricsSource {
  const core = kc.makeApiClient(CoreV1Api);
  return {
    async listReplicas() {
      const pods = await core.listNamespacedPod({ namespace: config.namespace, labelSelector: config.podSelector });
      return pods.items.flatMap((pod) => {
        const { name, uid } = pod.metadata ?? {};
        return name && uid && !pod.metadata?.deletionTimestamp ? [{ name, uid, ready: isReady(pod) }] : [];
      });
    },
    scrape(replica) {
      return core.connectGetNamespacedPodProxyWithPath({ name: `https:${replica.name}:${config.port}`, namespace: config.namespace, path: 'metrics' });
    },
  };
}

function isReady(pod: V1Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}
