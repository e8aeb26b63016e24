// What the Kueue e2e files share: GPU Jobs as a user writes them (only the
// queue-name label is Kueue's), the Kueue objects from the CDK's own builders
// created against the real CRDs, and reads of Workloads and a Job's pods.
import { BatchV1Api, CustomObjectsApi, KubernetesObjectApi, type CoreV1Api, type KubeConfig, type KubernetesObject, type V1Job, type V1Pod } from '@kubernetes/client-node';
import { KUEUE_QUEUE_LABEL } from '../../cdk/lib/kueue/kueue-objects';
import { KUEUE_API } from '../../local/addons/kueue';
import { markPodFinished, markPodRunning } from '../../local/nodes/pod-status';
import { GPU_SCHEDULER_NAME } from '../../local/scheduler-config';
import { waitFor } from '../../local/common/wait';

export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

export interface GpuJobSpec {
  name: string;
  /** The LocalQueue; unset: a Job Kueue leaves alone. */
  queue?: string;
  pods: number;
  gpusPerPod: number;
  /** On the pod template (e.g. Kueue's topology request, our peer-selector). */
  podAnnotations?: Record<string, string>;
  podLabels?: Record<string, string>;
}

/** An Indexed Job of `pods` ranks, each asking `gpusPerPod` GPUs of the gpu-scheduler. */
export function gpuJob(spec: GpuJobSpec): V1Job {
  const gpus = { 'nvidia.com/gpu': String(spec.gpusPerPod) };
  return {
    metadata: { name: spec.name, labels: spec.queue ? { [KUEUE_QUEUE_LABEL]: spec.queue } : {} },
    spec: {
      parallelism: spec.pods,
      completions: spec.pods,
      completionMode: 'Indexed',
      backoffLimit: 0,
      template: {
        metadata: { labels: { training: spec.name, ...spec.podLabels }, annotations: spec.podAnnotations ?? {} },
        spec: {
          schedulerName: GPU_SCHEDULER_NAME,
          restartPolicy: 'Never',
          containers: [{ name: 'trainer', image: 'cuda', resources: { requests: gpus, limits: gpus } }],
        },
      },
    },
  };
}

export async function createObjects(kubeConfig: KubeConfig, objects: readonly Record<string, unknown>[]): Promise<void> {
  const api = KubernetesObjectApi.makeApiClient(kubeConfig);
  for (const object of objects) await api.create(object as KubernetesObject);
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** The parts of a kueue.x-k8s.io/v1beta2 Workload the tests read. */
export interface Workload {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { queueName?: string };
  status?: {
    conditions?: Condition[];
    /** How often waitForPodsReady evicted and requeued it. */
    requeueState?: { count?: number; requeueAt?: string };
    admission?: {
      clusterQueue: string;
      podSetAssignments: { name: string; flavors?: Record<string, string>; topologyAssignment?: { levels: string[] } }[];
    };
  };
}

export function condition(workload: Workload | undefined, type: string): Condition | undefined {
  return workload?.status?.conditions?.find((c) => c.type === type);
}

/** The Workload Kueue made for a Job (owned by it), if it exists yet. */
export async function workloadOf(kubeConfig: KubeConfig, namespace: string, jobName: string): Promise<Workload | undefined> {
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const list = (await custom.listNamespacedCustomObject({ ...KUEUE_API, namespace, plural: 'workloads' })) as { items: Workload[] };
  return list.items.find((w) => w.metadata.ownerReferences?.some((o) => o.kind === 'Job' && o.name === jobName));
}

export async function waitForWorkloadCondition(kubeConfig: KubeConfig, namespace: string, jobName: string, type: string, status: 'True' | 'False', timeoutMs = 60_000): Promise<Workload> {
  return waitFor(
    `the Workload of Job ${namespace}/${jobName} to have ${type}=${status}`,
    async () => {
      const workload = await workloadOf(kubeConfig, namespace, jobName);
      return condition(workload, type)?.status === status ? workload : undefined;
    },
    { timeoutMs },
  );
}

export async function jobPods(core: CoreV1Api, namespace: string, jobName: string): Promise<V1Pod[]> {
  return (await core.listNamespacedPod({ namespace, labelSelector: `${JOB_NAME_LABEL}=${jobName}` })).items;
}

export async function readJob(kubeConfig: KubeConfig, namespace: string, name: string): Promise<V1Job> {
  return kubeConfig.makeApiClient(BatchV1Api).readNamespacedJob({ namespace, name });
}

/** Waits until `count` pods of the Job are bound; returns them by completion index. */
export async function waitForJobBound(core: CoreV1Api, namespace: string, jobName: string, count: number, timeoutMs = 90_000): Promise<V1Pod[]> {
  return waitFor(
    `${count} pods of Job ${namespace}/${jobName} bound to nodes`,
    async () => {
      const pods = (await jobPods(core, namespace, jobName)).filter((p) => p.spec?.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
      if (pods.length < count) return undefined;
      const index = (p: V1Pod): number => Number(p.metadata?.annotations?.['batch.kubernetes.io/job-completion-index'] ?? 0);
      return pods.sort((a, b) => index(a) - index(b));
    },
    { timeoutMs },
  );
}

/** What the kubelets would report: every bound pod of the Job Running and Ready. */
export async function runPods(core: CoreV1Api, namespace: string, pods: readonly V1Pod[]): Promise<void> {
  for (const pod of pods) await markPodRunning(core, { namespace, name: pod.metadata?.name ?? '' });
}

/** Every pod of the Job exits 0. */
export async function finishPods(core: CoreV1Api, namespace: string, pods: readonly V1Pod[]): Promise<void> {
  for (const pod of pods) await markPodFinished(core, { namespace, name: pod.metadata?.name ?? '' });
}

/** GPUs requested by the pods bound to a node and not finished, in the namespace. */
export async function gpusHeld(core: CoreV1Api, namespace: string): Promise<Record<string, number>> {
  const held: Record<string, number> = {};
  for (const pod of (await core.listNamespacedPod({ namespace })).items) {
    const node = pod.spec?.nodeName;
    if (!node || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const job = pod.metadata?.labels?.[JOB_NAME_LABEL] ?? pod.metadata?.name ?? '';
    for (const c of pod.spec?.containers ?? []) held[job] = (held[job] ?? 0) + Number(c.resources?.requests?.['nvidia.com/gpu'] ?? 0);
  }
  return held;
}
