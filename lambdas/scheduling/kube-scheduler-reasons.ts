import type { SchedulingReasonCode } from './scheduling-reason-codes';

/**
 * kube-scheduler's own reasons (in-tree plugins and the scheduler itself),
 * as its source writes them: kube-scheduler's texts, not codes we own, so
 * they are matched against the messages copied from kube-scheduler v1.35.4,
 * unchanged in v1.36.3 (`pkg/scheduler/...` of k8s.io/kubernetes, the file
 * named with each). A
 * Go verb (`%v`, `%s`, `%q`) stands for any text, as fmt fills it in; every
 * other character must match exactly, over the whole reason.
 */
const KUBE_SCHEDULER_REASONS: readonly (readonly [text: string, code: SchedulingReasonCode])[] = [
  // framework/plugins/noderesources/fit.go (fitsRequest): the fixed reasons, and
  // `fmt.Sprintf("Insufficient %v", rName)` for extended resources, of which the
  // NVIDIA device plugin's (nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-…)
  // are the same shortage the extender calls InsufficientGpus.
  ['Too many pods', 'TooManyPods'],
  ['Insufficient cpu', 'InsufficientCpu'],
  ['Insufficient memory', 'InsufficientMemory'],
  ['Insufficient nvidia.com/%v', 'InsufficientGpus'],
  // framework/plugins/tainttoleration/taint_toleration.go: Filter's reason, and ErrReasonNotMatch.
  ['node(s) had untolerated taint(s)', 'UntoleratedTaint'],
  ["node(s) had taints that the pod didn't tolerate", 'UntoleratedTaint'],
  // The same file before it dropped the taint from the text (e.g. v1.26,
  // kubernetes/kubernetes#116133): clusters on older minors still write it.
  ['node(s) had untolerated taint {%s: %s}', 'UntoleratedTaint'],
  // framework/plugins/nodeaffinity/node_affinity.go: ErrReasonPod, errReasonEnforced, errReasonConflict.
  ["node(s) didn't match Pod's node affinity/selector", 'NodeAffinity'],
  ["node(s) didn't match scheduler-enforced node affinity", 'NodeAffinity'],
  ['pod affinity terms conflict', 'NodeAffinity'],
  // framework/plugins/interpodaffinity/filtering.go: ErrReasonExistingAntiAffinityRulesNotMatch,
  // ErrReasonAffinityRulesNotMatch, ErrReasonAntiAffinityRulesNotMatch.
  ["node(s) didn't satisfy existing pods anti-affinity rules", 'PodAffinity'],
  ["node(s) didn't match pod affinity rules", 'PodAffinity'],
  ["node(s) didn't match pod anti-affinity rules", 'PodAffinity'],
  // framework/plugins/nodeunschedulable/node_unschedulable.go: ErrReasonUnschedulable, ErrReasonUnknownCondition.
  ['node(s) were unschedulable', 'NodeUnschedulable'],
  ['node(s) had unknown conditions', 'NodeUnschedulable'],
  // framework/plugins/podtopologyspread/plugin.go: ErrReasonConstraintsNotMatch, ErrReasonNodeLabelNotMatch.
  ["node(s) didn't match pod topology spread constraints", 'TopologySpread'],
  ["node(s) didn't match pod topology spread constraints (missing required label)", 'TopologySpread'],
  // framework/plugins/volumebinding/binder.go: ErrReasonBindConflict, ErrReasonNodeConflict,
  // ErrReasonNotEnoughSpace, ErrReasonPVNotExist.
  ["node(s) didn't find available persistent volumes to bind", 'Volume'],
  ["node(s) didn't match PersistentVolume's node affinity", 'Volume'],
  ['node(s) did not have enough free storage', 'Volume'],
  ['node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)', 'Volume'],
  // framework/plugins/volumebinding/volume_binding.go: PreFilter's reasons (podHasPVCs), and the
  // lister's not-found error it passes on (apimachinery's pkg/api/errors/errors.go, NewNotFound).
  ['pod has unbound immediate PersistentVolumeClaims', 'Volume'],
  ['waiting for ephemeral volume controller to create the persistentvolumeclaim %q', 'Volume'],
  ['persistentvolumeclaim %q bound to non-existent persistentvolume %q', 'Volume'],
  ['persistentvolumeclaim %q is being deleted', 'Volume'],
  ['persistentvolumeclaim %q not found', 'Volume'],
  // framework/plugins/volumezone/volume_zone.go: ErrReasonConflict.
  ['node(s) had no available volume zone', 'Volume'],
  // framework/plugins/volumerestrictions/volume_restrictions.go: ErrReasonDiskConflict, ErrReasonReadWriteOncePodConflict.
  ['node(s) had no available disk', 'Volume'],
  ['node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod', 'Volume'],
  // framework/plugins/nodevolumelimits/csi.go: ErrReasonMaxVolumeCountExceeded.
  ['node(s) exceed max volume count', 'Volume'],
  // scheduler.go: ErrNoNodesAvailable.
  ['no nodes available to schedule pods', 'NoNodes'],
  // extender.go (HTTPExtender.send): the extender answered with a status other than 200.
  ['failed %v with extender at URL %v, code %v', 'ExtenderError'],
  // The extender could not be reached or timed out: HTTPExtender.send's POST fails with Go's
  // net/url Error (`fmt.Sprintf("%s %q: %s", e.Op, e.URL, e.Err)`), and kube-scheduler POSTs nothing else.
  ['Post %q: %s', 'ExtenderError'],
];

/** A Go format as a whole-text pattern: each verb any text, everything else literal. */
function formatPattern(text: string): RegExp {
  const literal = text.split(/%[vsqd]/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${literal.join('.*')}$`, 's');
}

const EXACT = new Map<string, SchedulingReasonCode>();
const FORMATTED: (readonly [RegExp, SchedulingReasonCode])[] = [];
for (const [text, code] of KUBE_SCHEDULER_REASONS) {
  if (/%[vsqd]/.test(text)) FORMATTED.push([formatPattern(text), code]);
  else EXACT.set(text, code);
}

/** The code of one of kube-scheduler's own reasons; undefined for any text it does not write. */
export function kubeSchedulerReasonCode(reason: string): SchedulingReasonCode | undefined {
  return EXACT.get(reason) ?? FORMATTED.find(([pattern]) => pattern.test(reason))?.[1];
}
