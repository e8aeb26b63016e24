// The local nodes have no kubelet: a pod the user creates while `npm start`
// runs would stay Pending (bound, but never started) and a deleted one
// Terminating, with nothing said. Once the pipeline is just running, this does
// through the API what a kubelet would, as the demo does for its own pods, and
// prints one line for each: bound and marked Running, could not be scheduled
// (kube-scheduler's reason), deleted.
import type { CoreV1Api, CoreV1Event, V1Pod } from '@kubernetes/client-node';
import { markPodRunning } from '../nodes/pod-status';

export interface PodLifecycleOptions {
  core: CoreV1Api;
  /** Pods to leave alone (the demo's, already explained). */
  ignore?: (pod: V1Pod) => boolean;
  report: (line: string) => void;
  /** How a node is named in the output (the demo's ids). */
  nodeLabel: (nodeName: string) => string;
  onError: (error: unknown) => void;
}

const key = (pod: V1Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/** One line for a pod kube-scheduler could not place: its event's message, the first sentence. */
export function unschedulableLine(podKey: string, event: CoreV1Event): string {
  const message = (event.message ?? '').split(/\.\s+(?=(?:no new claims to deallocate, )?preemption:)/)[0] ?? '';
  return `pod ${podKey} not scheduled: ${message} (kubectl describe pod shows the event; it is retried as the cluster changes)`;
}

export function runningLine(podKey: string, nodeLabel: string, nodeName: string, schedulerName: string): string {
  const where = nodeLabel === nodeName ? nodeName : `${nodeLabel} (${nodeName})`;
  return `pod ${podKey} bound to ${where} by ${schedulerName}; marked Running, as a kubelet would (these nodes have none)`;
}

export class PodLifecycle {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** Pods already reported unschedulable, with the message reported. */
  private readonly reportedUnschedulable = new Map<string, string>();
  private nextIp = 0;

  constructor(private readonly options: PodLifecycleOptions) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.polling ??= this.poll()
        .catch(this.options.onError)
        .finally(() => {
          this.polling = undefined;
        });
    }, intervalMs);
  }

  /** One look at every pod: start the bound ones, finish the deleted ones, report the unschedulable ones once per reason. */
  async poll(): Promise<void> {
    const { core, report, nodeLabel } = this.options;
    const pods = (await core.listPodForAllNamespaces()).items;
    let failedEvents: CoreV1Event[] | undefined;
    for (const pod of pods) {
      const namespace = pod.metadata?.namespace;
      const name = pod.metadata?.name;
      const nodeName = pod.spec?.nodeName;
      if (!namespace || !name || this.options.ignore?.(pod)) continue;
      if (pod.metadata?.deletionTimestamp) {
        // Only a kubelet finishes a graceful deletion of a pod on a node.
        if (nodeName) {
          await core.deleteNamespacedPod({ namespace, name, gracePeriodSeconds: 0 }).catch((error: unknown) => {
            if (!String(error).includes('404')) throw error;
          });
          report(`pod ${key(pod)} deleted (no kubelet to stop its containers: the graceful deletion is finished at once)`);
        }
        continue;
      }
      if (pod.status?.phase !== 'Pending') continue;
      if (nodeName) {
        await markPodRunning(core, { namespace, name }, this.podIp());
        this.reportedUnschedulable.delete(key(pod));
        report(runningLine(key(pod), nodeLabel(nodeName), nodeName, pod.spec?.schedulerName ?? 'default-scheduler'));
        continue;
      }
      failedEvents ??= (await core.listEventForAllNamespaces({ fieldSelector: 'reason=FailedScheduling' })).items;
      const latest = failedEvents
        .filter((e) => e.involvedObject.uid === pod.metadata?.uid)
        .sort((a, b) => eventTime(b) - eventTime(a))[0];
      if (latest && this.reportedUnschedulable.get(key(pod)) !== latest.message) {
        this.reportedUnschedulable.set(key(pod), latest.message ?? '');
        report(unschedulableLine(key(pod), latest));
      }
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
  }

  private podIp(): string {
    const n = this.nextIp++;
    return `10.3.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
  }
}

function eventTime(event: CoreV1Event): number {
  return new Date(event.lastTimestamp ?? event.eventTime ?? event.metadata.creationTimestamp ?? 0).getTime();
}
