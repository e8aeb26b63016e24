import type { V1Pod } from '@kubernetes/client-node';
import type { SchedulingReasonCode } from './scheduling-reason-codes';
import { failedSchedulingCodes } from './failed-scheduling';
import type { GpuClaimLookup } from './dra-claims';
import { parsePodRequirements } from './pod-requirements';

/** An unbound Pending GPU pod of `schedulerName` (it asks for a GPU resource or claims a GPU; `claimOf` finds its claims), gated or not. */
function isUnboundGpuPod(pod: V1Pod, schedulerName: string, claimOf?: GpuClaimLookup): boolean {
  if (pod.spec?.schedulerName !== schedulerName || (pod.spec.nodeName ?? '') !== '' || pod.status?.phase !== 'Pending') return false;
  return parsePodRequirements(pod, claimOf).demand.gpuCount > 0;
}

/**
 * Whether a pod carries scheduling gates: the scheduler does not try it until
 * they are lifted. Kueue holds the pods of an admitted workload this way until
 * it has chosen their topology domain (`kueue.x-k8s.io/topology`), and plain
 * pods until admission (`kueue.x-k8s.io/admission`); such a pod waits for
 * admission, not for a node that fits.
 */
export function isSchedulingGated(pod: V1Pod): boolean {
  return (pod.spec?.schedulingGates?.length ?? 0) > 0;
}

/** Whether a pod is waiting for `schedulerName` to find it a node and asks for a GPU resource or claims a GPU (`claimOf` finds its claims). */
export function isPendingGpuPod(pod: V1Pod, schedulerName: string, claimOf?: GpuClaimLookup): boolean {
  return isUnboundGpuPod(pod, schedulerName, claimOf) && !isSchedulingGated(pod);
}

/** The scheduler's last word on an unscheduled pod (the FailedScheduling event's text), if it has tried. */
export function unschedulableMessage(pod: V1Pod): string | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return condition?.message || undefined;
}

export interface PendingGpuPods {
  /** Pods the scheduler can try: waiting for a node that fits. */
  readonly count: number;
  /** GPU pods of the scheduler held by scheduling gates (waiting for admission, e.g. by Kueue): not in `count`, its age or its reasons. */
  readonly gated: number;
  /** Age of the oldest, in seconds; undefined when none is pending. */
  readonly oldestSeconds: number | undefined;
  /** Pending pods per reason code, most frequent first: at most `reasonLimit` codes, the rest summed into `Other`. */
  readonly reasons: readonly { readonly code: SchedulingReasonCode; readonly pods: number }[];
}

/**
 * The GPU pods pending for `schedulerName`, the oldest one's age, and why
 * they are pending: each pod counts once per distinct reason code of its
 * PodScheduled=False message (pods the scheduler has not tried yet count
 * under no reason). Pods held by scheduling gates are counted apart
 * (`gated`): the scheduler has not been allowed to try them.
 */
export function pendingGpuPods(pods: readonly V1Pod[], schedulerName: string, nowMs: number, reasonLimit = 5, claimOf?: GpuClaimLookup): PendingGpuPods {
  const unbound = pods.filter((p) => isUnboundGpuPod(p, schedulerName, claimOf));
  const pending = unbound.filter((p) => !isSchedulingGated(p));
  const created = pending.map((p) => (p.metadata?.creationTimestamp ? new Date(p.metadata.creationTimestamp).getTime() : Number.NaN)).filter(Number.isFinite);
  const oldestSeconds = created.length === 0 ? undefined : Math.max(0, Math.round((nowMs - Math.min(...created)) / 1000));
  const byCode = new Map<SchedulingReasonCode, number>();
  for (const pod of pending) {
    const message = unschedulableMessage(pod);
    if (message === undefined) continue;
    for (const code of failedSchedulingCodes(message)) byCode.set(code, (byCode.get(code) ?? 0) + 1);
  }
  return { count: pending.length, gated: unbound.length - pending.length, oldestSeconds, reasons: topReasons(byCode, reasonLimit) };
}

function topReasons(byCode: ReadonlyMap<SchedulingReasonCode, number>, limit: number): { code: SchedulingReasonCode; pods: number }[] {
  // Ties in code order, so the same cluster always reports the same codes.
  const ranked = [...byCode].filter(([code]) => code !== 'Other').sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const kept = ranked.slice(0, limit).map(([code, pods]) => ({ code, pods }));
  const other = (byCode.get('Other') ?? 0) + ranked.slice(limit).reduce((sum, [, pods]) => sum + pods, 0);
  return other > 0 ? [...kept, { code: 'Other', pods: other }] : kept;
}
