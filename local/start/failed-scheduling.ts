/**
 * kube-scheduler's FailedScheduling message, one reason per line:
 * "0/12 nodes are available: 1 Not enough GPUs: …, 3 GPU model mismatch: …. preemption: …".
 */
export function failedSchedulingLines(message: string): string[] {
  const [placement = '', ...rest] = message.split(/\.\s+(?=(?:no new claims to deallocate, )?preemption:)/);
  const header = /^(\d+\/\d+ nodes are available): /.exec(placement);
  if (!header?.[1]) return [message];
  const reasons = placement.slice(header[0].length).replace(/\.$/, '').split(/, (?=\d+ )/);
  const preemption = rest.join('. ').replace(/^no new claims to deallocate, /, '').trim();
  return [`${header[1]}:`, ...reasons.map((r) => `  ${r.replace(/^(\d+) /, '$1 × ')}`), ...(preemption ? [preemption] : [])];
}
