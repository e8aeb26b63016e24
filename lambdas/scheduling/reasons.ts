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
] as const;
export type RejectionReason = (typeof REJECTION_REASONS)[number];
