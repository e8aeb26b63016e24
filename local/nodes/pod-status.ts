// What a kubelet would do for pods, done through the API: there is no kubelet
// on the harness's nodes, so tests move pods to Running/Ready themselves.
import { PatchStrategy, setHeaderOptions, type CoreV1Api, type CoreV1Event, type V1Pod } from '@kubernetes/client-node';
import { waitFor } from '../common/wait';

const STRATEGIC_MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export interface PodRef {
  namespace: string;
  name: string;
}

/**
 * Sets phase Running and the Ready conditions via the status subresource (strategic merge: conditions merge by type).
 * `readySince` back-dates the Ready transition (the ReplicaSet controller ranks pods by how long they have been Ready).
 */
export async function markPodRunning(core: CoreV1Api, { namespace, name }: PodRef, podIP = '10.0.0.10', readySince = new Date()): Promise<V1Pod> {
  const pod = await core.readNamespacedPod({ namespace, name });
  const now = readySince.toISOString();
  const condition = (type: string): Record<string, string> => ({ type, status: 'True', lastTransitionTime: now });
  return core.patchNamespacedPodStatus(
    {
      namespace,
      name,
      body: {
        status: {
          phase: 'Running',
          podIP,
          podIPs: [{ ip: podIP }],
          startTime: pod.status?.startTime ?? now,
          conditions: ['PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready'].map(condition),
          containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
            name: c.name,
            image: c.image ?? '',
            imageID: '',
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: { startedAt: now } },
          })),
        },
      },
    },
    STRATEGIC_MERGE_PATCH,
  );
}

/**
 * Its containers exited (code 0 for Succeeded, 1 for Failed) and the pod is
 * done, not Ready, as the kubelet reports it (the Job controller counts a
 * Succeeded one as a completion).
 */
export async function markPodFinished(core: CoreV1Api, { namespace, name }: PodRef, phase: 'Succeeded' | 'Failed' = 'Succeeded', finishedAt = new Date()): Promise<V1Pod> {
  const pod = await core.readNamespacedPod({ namespace, name });
  const now = finishedAt.toISOString();
  const condition = (type: string): Record<string, string> => ({ type, status: 'False', reason: 'PodCompleted', lastTransitionTime: now });
  return core.patchNamespacedPodStatus(
    {
      namespace,
      name,
      body: {
        status: {
          phase,
          startTime: pod.status?.startTime ?? now,
          conditions: ['ContainersReady', 'Ready'].map(condition),
          containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
            name: c.name,
            image: c.image ?? '',
            imageID: '',
            ready: false,
            started: false,
            restartCount: 0,
            state: {
              terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, reason: phase === 'Succeeded' ? 'Completed' : 'Error', startedAt: pod.status?.startTime ?? now, finishedAt: now },
            },
          })),
        },
      },
    },
    STRATEGIC_MERGE_PATCH,
  );
}

/** Waits until the scheduler bound the pod; returns the node name. */
export function waitForPodScheduled(core: CoreV1Api, ref: PodRef, timeoutMs = 60_000): Promise<string> {
  return waitFor(
    `pod ${ref.namespace}/${ref.name} to be scheduled`,
    async () => (await core.readNamespacedPod(ref)).spec?.nodeName || undefined,
    { timeoutMs },
  );
}

/** Events whose involvedObject is the pod, oldest first. */
export async function podEvents(core: CoreV1Api, { namespace, name }: PodRef): Promise<CoreV1Event[]> {
  const list = await core.listNamespacedEvent({
    namespace,
    fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${name}`,
  });
  const time = (e: CoreV1Event): number =>
    new Date(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? 0).getTime();
  return [...list.items].sort((a, b) => time(a) - time(b));
}

/** Waits for an event of the pod that matches (e.g. reason FailedScheduling with a message). */
export function waitForPodEvent(
  core: CoreV1Api,
  ref: PodRef,
  matches: (event: CoreV1Event) => boolean,
  timeoutMs = 60_000,
): Promise<CoreV1Event> {
  return waitFor(
    `an event of pod ${ref.namespace}/${ref.name} that matches`,
    async () => (await podEvents(core, ref)).find(matches),
    { timeoutMs },
  );
}

/**
 * Finishes graceful deletions the kubelet would finish: pods with a
 * deletionTimestamp are deleted with grace period 0. Returns how many.
 */
export async function finishTerminatingPods(core: CoreV1Api, namespace: string): Promise<number> {
  const pods = await core.listNamespacedPod({ namespace });
  const terminating = pods.items.filter((p) => p.metadata?.deletionTimestamp && p.metadata.name);
  for (const pod of terminating) {
    await core
      .deleteNamespacedPod({ namespace, name: pod.metadata?.name ?? '', gracePeriodSeconds: 0 })
      .catch((error: unknown) => {
        if (!String(error).includes('404')) throw error;
      });
  }
  return terminating.length;
}
