// Taints and tolerations (k8s.io/api core/v1 toleration.go), as
// TaintToleration, NodeUnschedulable and PodTopologySpread use them.
import type { Taint } from './cluster';
import type { Toleration } from './pod-spec';

/** Toleration.ToleratesTaint with the comparison operators (Lt, Gt) off, as in kube-scheduler v1.36's defaults. */
export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key !== '' && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  if (toleration.operator === 'Equal' || toleration.operator === '') return toleration.value === taint.value;
  return false;
}

export function toleratedByAny(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => tolerates(t, taint));
}

/** The first NoSchedule or NoExecute taint no toleration covers (FindMatchingUntoleratedTaint with DoNotScheduleTaintsFilterFunc). */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !toleratedByAny(tolerations, taint));
}

export const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', value: '', effect: 'NoSchedule' };
