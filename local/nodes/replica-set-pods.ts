// Pods made by a real ReplicaSet, bound to one node: the reconciler writes a
// deletion cost only on ReplicaSet-owned pods, so its tests and benchmarks
// need pods the ReplicaSet controller created rather than bare ones.
import type { AppsV1Api, CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../common/wait';

export interface ReplicaSetPodsSpec {
  namespace: string;
  name: string;
  replicas: number;
  nodeName: string;
  /** Pod template labels (besides the ReplicaSet's own selector label). */
  labels: Readonly<Record<string, string>>;
  image: string;
}

/** The label the ReplicaSet selects its pods by; its value is the ReplicaSet's name. */
export const REPLICA_SET_POD_LABEL = 'local.gpu-scheduling/replica-set';

/** Creates the ReplicaSet and waits until its controller has created every pod; returns them sorted by name (the order the API server lists them in). */
export async function createReplicaSetPods(clients: { core: CoreV1Api; apps: AppsV1Api }, spec: ReplicaSetPodsSpec, timeoutMs = 170_000): Promise<V1Pod[]> {
  const selector = { [REPLICA_SET_POD_LABEL]: spec.name };
  await clients.apps.createNamespacedReplicaSet({
    namespace: spec.namespace,
    body: {
      metadata: { name: spec.name },
      spec: {
        replicas: spec.replicas,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: { ...spec.labels, ...selector } },
          spec: { nodeName: spec.nodeName, containers: [{ name: 'app', image: spec.image }] },
        },
      },
    },
  });
  const pods = await waitFor(
    `${spec.replicas} pods of ReplicaSet ${spec.name}`,
    async () => {
      const list = await clients.core.listNamespacedPod({ namespace: spec.namespace, labelSelector: `${REPLICA_SET_POD_LABEL}=${spec.name}` });
      return list.items.length === spec.replicas ? list.items : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
  const name = (pod: V1Pod): string => pod.metadata?.name ?? '';
  // Code-unit order, as etcd orders keys (localeCompare would not).
  return [...pods].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}
