/**
 * Low-cardinality codes for why a node was rejected (the human message goes
 * to logs and to the scheduler). The metric catalog re-exports this list as
 * the `Reason` dimension values, so there is one source of truth.
 */
export const REJECTION_REASONS = [
  'InsufficientGpus',
  'GpuModelMismatch',
  'InsufficientGpuMemory',
  'InvalidPodAnnotation',
  'NodeNotFound',
  'InsufficientCpu',
  'InsufficientMemory',
  'TooManyPods',
  /** The node reports GPU counts, memory or sharing outside physical bounds. */
  'InvalidNodeData',
  /** The node's GPUs are shared (time-slicing, MPS) or partitioned (MIG) in a way the request cannot use. */
  'GpuSharingMismatch',
  /** The node's Capacity Block ends before the pod would finish, or within the drain margin. */
  'CapacityBlockEnding',
  /** A health signal keeps GPU pods off the node: AcceleratedHardwareReady=False, or NetworkingReady=False for a distributed job's pod (GpuHealth). */
  'NodeUnhealthy',
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/**
 * The fixed phrase that starts every message of a code: what a person reads
 * in `kubectl describe pod`, and what FailedScheduling's reasons are
 * classified by (rejectionCode), so a message's code is read back from the
 * same table it was written from. A phrase holds no ": " (the separator from
 * the detail) and no two codes share one (both tested).
 */
export const REJECTION_PHRASES: Readonly<Record<RejectionReason, string>> = {
  InsufficientGpus: 'Not enough GPUs',
  GpuModelMismatch: 'GPU model mismatch',
  InsufficientGpuMemory: 'Not enough GPU memory',
  InvalidPodAnnotation: 'Invalid pod',
  NodeNotFound: "Node is not in the extender's cluster cache",
  // The same words as kube-scheduler's NodeResourcesFit, which the simulator's copy of it stands for.
  InsufficientCpu: 'Insufficient cpu',
  InsufficientMemory: 'Insufficient memory',
  TooManyPods: 'Too many pods',
  InvalidNodeData: 'Node reports impossible GPU data',
  GpuSharingMismatch: 'GPU sharing mismatch',
  CapacityBlockEnding: 'Capacity Block ends too soon',
  NodeUnhealthy: 'Node is unhealthy',
};

const SEPARATOR = ': ';

/** The message of a rejection: the code's phrase, then the detail (what was asked, what the node has) when there is one. */
export function rejectionMessage(code: RejectionReason, detail?: string): string {
  const phrase = REJECTION_PHRASES[code];
  return detail === undefined || detail === '' ? phrase : `${phrase}${SEPARATOR}${detail}`;
}

const CODE_OF_PHRASE: ReadonlyMap<string, RejectionReason> = new Map(REJECTION_REASONS.map((code) => [REJECTION_PHRASES[code], code]));
const CODES: ReadonlySet<string> = new Set(REJECTION_REASONS);

/**
 * The code of a reason our plugins or the extender wrote: its phrase (the
 * text up to the first ": ") looked up in REJECTION_PHRASES, or the bare code
 * a reply over the ALB's size budget carries (lambdas/extender/verbs.ts).
 * Undefined for any other text.
 */
export function rejectionCode(reason: string): RejectionReason | undefined {
  const cut = reason.indexOf(SEPARATOR);
  const code = CODE_OF_PHRASE.get(cut < 0 ? reason : reason.slice(0, cut));
  if (code !== undefined) return code;
  return CODES.has(reason) ? (reason as RejectionReason) : undefined;
}
