import { REJECTION_REASONS } from './reasons';

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
