import type { V1Pod } from '@kubernetes/client-node';
import type { SchedulingReasonCode } from './failed-scheduling';
import { failedSchedulingCodes } from './failed-scheduling';
import type { GpuClaimLookup } from './dra-claims';
import { parsePodRequirements } from './pod-requirements';

/** Whether a pod is waiting for `schedulerName` and asks for a GPU resource or claims a GPU (`claimOf` finds its claims). */
export function isPendingGpuPod(pod: V1Pod, schedulerName: string, claimOf?: GpuClaimLookup): boolean {
  if (pod.spec?.schedulerName !== schedulerName || (pod.spec.nodeName ?? '') !== '' || pod.status?.phase !== 'Pending') return false;
  return parsePodRequirements(pod, claimOf).demand.gpuCount > 0;
}

/** The scheduler's last word on an unscheduled pod (the FailedScheduling event's text), if it has tried. */
export function unschedulableMessage(pod: V1Pod): string | undefined {
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False');
  return condition?.message || undefined;
}

export interface PendingGpuPods {
  readonly count: number;
  /** Age of the oldest, in seconds; undefined when none is pending. */
  readonly oldestSeconds: number | undefined;
  /** Pending pods per reason code, most frequent first: at most `reasonLimit` codes, the rest summed into `Other`. */
  readonly reasons: readonly { readonly code: SchedulingReasonCode; readonly pods: number }[];
}

/**
 * The GPU pods pending for `schedulerName`, the oldest one's age, and why
 * they are pending: each pod counts once per distinct reason code of its
 * PodScheduled=False message (pods the scheduler has not tried yet count
 * under no reason).
 */
export function pendingGpuPods(pods: readonly V1Pod[], schedulerName: string, nowMs: number, reasonLimit = 5, claimOf?: GpuClaimLookup): PendingGpuPods {
  const pending = pods.filter((p) => isPendingGpuPod(p, schedulerName, claimOf));
  const created = pending.map((p) => (p.metadata?.creationTimestamp ? new Date(p.metadata.creationTimestamp).getTime() : Number.NaN)).filter(Number.isFinite);
  const oldestSeconds = created.length === 0 ? undefined : Math.max(0, Math.round((nowMs - Math.min(...created)) / 1000));
  const byCode = new Map<SchedulingReasonCode, number>();
  for (const pod of pending) {
    const message = unschedulableMessage(pod);
    if (message === undefined) continue;
    for (const code of failedSchedulingCodes(message)) byCode.set(code, (byCode.get(code) ?? 0) + 1);
  }
  return { count: pending.length, oldestSeconds, reasons: topReasons(byCode, reasonLimit) };
}

function topReasons(byCode: ReadonlyMap<SchedulingReasonCode, number>, limit: number): { code: SchedulingReasonCode; pods: number }[] {
  // Ties in code order, so the same cluster always reports the same codes.
  const ranked = [...byCode].filter(([code]) => code !== 'Other').sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  const kept = ranked.slice(0, limit).map(([code, pods]) => ({ code, pods }));
  const other = (byCode.get('Other') ?? 0) + ranked.slice(limit).reduce((sum, [, pods]) => sum + pods, 0);
  return other > 0 ? [...kept, { code: 'Other', pods: other }] : kept;
}
