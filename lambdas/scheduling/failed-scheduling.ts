import { REJECTION_REASONS } from '../../lambdas/scheduling/reasons';
/**
 * Who wrote a FailedScheduling reason: the extender's messages (lambdas/scheduling
 * filters and the extender's own), or kube-scheduler's in-tree plugins
 * (`Insufficient nvidia.com/gpu`, taints, affinity, …). With
 * `ignoredByScheduler: false` the scheduler's own GPU count rejects nodes
 * before the extender sees them, so a pod's event usually carries both.
 */
const EXTENDER_REASON =
  /^(?:Not enough GPU|Not enough MIG|GPU model mismatch|GPU sharing mismatch|GPUs are shared|Invalid pod|Invalid annotation|Node reports impossible GPU data|Node is not in the extender's cluster cache)/;
/** A reply over the ALB's size budget carries the bare codes (lambdas/extender/verbs.ts). */
const EXTENDER_CODES: ReadonlySet<string> = new Set(REJECTION_REASONS);

export type ReasonSource = 'extender' | 'kube-scheduler';

export function reasonSource(reason: string): ReasonSource {
  return EXTENDER_REASON.test(reason) || EXTENDER_CODES.has(reason) ? 'extender' : 'kube-scheduler';
}

/**
 * kube-scheduler's FailedScheduling message, one reason per line, each marked
 * with who gave it:
 * "0/12 nodes are available: 1 Insufficient nvidia.com/gpu, 3 GPU model mismatch: …. preemption: …".
 */
export function failedSchedulingLines(message: string): string[] {
  const [placement = '', ...rest] = message.split(/\.\s+(?=(?:no new claims to deallocate, )?preemption:)/);
  const header = /^(\d+\/\d+ nodes are available): /.exec(placement);
  if (!header?.[1]) return [message];
  const reasons = placement.slice(header[0].length).replace(/\.$/, '').split(/, (?=\d+ )/);
  const preemption = rest.join('. ').replace(/^no new claims to deallocate, /, '').trim();
  return [
    `${header[1]}:`,
    ...reasons.map((r) => {
      const text = r.replace(/^\d+ /, '');
      return `  ${r.replace(/^(\d+) /, '$1 × ')}  (${reasonSource(text)})`;
    }),
    ...(preemption ? [preemption] : []),
  ];
}
