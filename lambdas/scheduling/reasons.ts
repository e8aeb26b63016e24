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
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];
