import { kubeSchedulerReasonCode } from './kube-scheduler-reasons';
import { rejectionCode } from './reasons';
import type { SchedulingReasonCode } from './scheduling-reason-codes';
/**
 * Reading kube-scheduler's FailedScheduling message (the pod's
 * PodScheduled=False condition carries the same text): who gave each reason,
 * one line per reason for people, and a low-cardinality code per reason for
 * metrics.
 *
 * Who wrote a reason: the extender's messages (lambdas/scheduling filters
 * and the extender's own, each starting with its code's phrase from
 * reasons.ts), or kube-scheduler's in-tree plugins
 * (`Insufficient nvidia.com/gpu`, taints, affinity, …; kube-scheduler-reasons.ts).
 * With `ignoredByScheduler: false` the scheduler's own GPU count rejects
 * nodes before the extender sees them, so a pod's message usually carries both.
 */

export type ReasonSource = 'extender' | 'kube-scheduler';

/** kube-scheduler's words first: its NodeResourcesFit reasons ("Too many pods") are also phrases of ours. */
export function reasonSource(reason: string): ReasonSource {
  return kubeSchedulerReasonCode(reason) === undefined && rejectionCode(reason) !== undefined ? 'extender' : 'kube-scheduler';
}

/** One reason of the message: how many nodes gave it, and its text. */
export interface FailedSchedulingReason {
  readonly nodes: number;
  readonly text: string;
}

interface ParsedMessage {
  readonly header: string;
  readonly reasons: readonly FailedSchedulingReason[];
  readonly preemption: string;
}

/** "0/12 nodes are available: 1 Insufficient nvidia.com/gpu, 3 GPU model mismatch: …. preemption: …"; undefined for any other text. */
function parseMessage(message: string): ParsedMessage | undefined {
  const [placement = '', ...rest] = message.split(/\.\s+(?=(?:no new claims to deallocate, )?preemption:)/);
  const header = /^(\d+\/\d+ nodes are available): /.exec(placement);
  if (!header?.[1]) return undefined;
  const reasons = placement
    .slice(header[0].length)
    .replace(/\.$/, '')
    .split(/, (?=\d+ )/)
    .map((r) => {
      const count = /^(\d+) /.exec(r);
      return { nodes: count?.[1] ? Number(count[1]) : 0, text: count ? r.slice(count[0].length) : r };
    });
  return { header: header[1], reasons, preemption: rest.join('. ').replace(/^no new claims to deallocate, /, '').trim() };
}

/** The message's reasons; a message of another form is one reason of 0 nodes. */
export function failedSchedulingReasons(message: string): FailedSchedulingReason[] {
  return [...(parseMessage(message)?.reasons ?? [{ nodes: 0, text: message }])];
}

/** The message, one reason per line, each marked with who gave it. */
export function failedSchedulingLines(message: string): string[] {
  const parsed = parseMessage(message);
  if (parsed === undefined) return [message];
  return [
    `${parsed.header}:`,
    ...parsed.reasons.map((r) => `  ${r.nodes} × ${r.text}  (${reasonSource(r.text)})`),
    ...(parsed.preemption ? [parsed.preemption] : []),
  ];
}

/**
 * The code of one reason: ours read back from its phrase (rejectionCode),
 * else kube-scheduler's own from its exact texts, else `Other`.
 */
export function schedulingReasonCode(text: string): SchedulingReasonCode {
  return rejectionCode(text) ?? kubeSchedulerReasonCode(text) ?? 'Other';
}

/** The distinct reason codes of one message. */
export function failedSchedulingCodes(message: string): SchedulingReasonCode[] {
  return [...new Set(failedSchedulingReasons(message).map((r) => schedulingReasonCode(r.text)))];
}
