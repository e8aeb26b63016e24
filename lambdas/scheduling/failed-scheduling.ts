import { REJECTION_REASONS } from './reasons';
/**
 * Reading kube-scheduler's FailedScheduling message (the pod's
 * PodScheduled=False condition carries the same text): who gave each reason,
 * one line per reason for people, and a low-cardinality code per reason for
 * metrics.
 *
 * Who wrote a reason: the extender's messages (lambdas/scheduling filters
 * and the extender's own), or kube-scheduler's in-tree plugins
 * (`Insufficient nvidia.com/gpu`, taints, affinity, …). With
 * `ignoredByScheduler: false` the scheduler's own GPU count rejects nodes
 * before the extender sees them, so a pod's message usually carries both.
 */
const EXTENDER_REASON =
  /^(?:Not enough GPU|Not enough MIG|GPU model mismatch|GPU sharing mismatch|GPUs are shared|Invalid pod|Invalid annotation|Node reports impossible GPU data|Node is not in the extender's cluster cache)/;
/** A reply over the ALB's size budget carries the bare codes (lambdas/extender/verbs.ts). */
const EXTENDER_CODES: ReadonlySet<string> = new Set(REJECTION_REASONS);

export type ReasonSource = 'extender' | 'kube-scheduler';

export function reasonSource(reason: string): ReasonSource {
  return EXTENDER_REASON.test(reason) || EXTENDER_CODES.has(reason) ? 'extender' : 'kube-scheduler';
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
 * Metric codes for scheduling reasons: the extender's rejection codes, then
 * kube-scheduler's common in-tree reasons, then `Other`. A fixed list, so a
 * per-reason metric has a bounded set of dimension values whatever the
 * messages say.
 */
export const SCHEDULING_REASON_CODES = [
  ...REJECTION_REASONS,
  'UntoleratedTaint',
  'NodeAffinity',
  'PodAffinity',
  'NodeUnschedulable',
  'TopologySpread',
  'Volume',
  'NoNodes',
  'ExtenderError',
  'Other',
] as const;
export type SchedulingReasonCode = (typeof SCHEDULING_REASON_CODES)[number];

const CODE_PATTERNS: readonly (readonly [RegExp, SchedulingReasonCode])[] = [
  [/^Not enough GPU memory/, 'InsufficientGpuMemory'],
  [/^Not enough (?:GPU|MIG)/, 'InsufficientGpus'],
  // kube-scheduler's own count of the extended resource: the same shortage.
  [/^Insufficient nvidia\.com\//, 'InsufficientGpus'],
  [/^GPU model mismatch/, 'GpuModelMismatch'],
  [/^(?:GPU sharing mismatch|GPUs are shared)/, 'GpuSharingMismatch'],
  [/^Invalid (?:pod|annotation)/, 'InvalidPodAnnotation'],
  [/^Node reports impossible GPU data/, 'InvalidNodeData'],
  [/^Node is not in the extender's cluster cache/, 'NodeNotFound'],
  [/^Insufficient cpu/, 'InsufficientCpu'],
  [/^Insufficient memory/, 'InsufficientMemory'],
  [/^Too many pods/, 'TooManyPods'],
  [/untolerated taint/, 'UntoleratedTaint'],
  [/node affinity|node selector/i, 'NodeAffinity'],
  [/pod affinity|anti-affinity/i, 'PodAffinity'],
  [/were unschedulable/, 'NodeUnschedulable'],
  [/topology spread/i, 'TopologySpread'],
  [/volume|PersistentVolumeClaim/i, 'Volume'],
  [/^no nodes available/, 'NoNodes'],
  [/extender/i, 'ExtenderError'],
];

export function schedulingReasonCode(text: string): SchedulingReasonCode {
  if (EXTENDER_CODES.has(text)) return text as SchedulingReasonCode;
  return CODE_PATTERNS.find(([pattern]) => pattern.test(text))?.[1] ?? 'Other';
}

/** The distinct reason codes of one message. */
export function failedSchedulingCodes(message: string): SchedulingReasonCode[] {
  return [...new Set(failedSchedulingReasons(message).map((r) => schedulingReasonCode(r.text)))];
}
