// What the GPU-intent admission policies share: names, labels, the pod
// CREATE match and the CEL to read a pod's annotations.
import { celString } from './gpu-intent-cel';

export const GPU_INTENT_POLICY_NAMES = {
  optIn: 'gpu-scheduling-gpu-scheduler-opt-in',
  affinity: 'gpu-scheduling-gpu-intent-affinity',
  annotationCheck: 'gpu-scheduling-gpu-annotations',
} as const;

/** The label every object of the app carries (kubectl get … -l app.kubernetes.io/part-of=gpu-scheduling). */
export const POLICY_LABELS = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
export const POLICY_API_VERSION = 'admissionregistration.k8s.io/v1';

/** Pods when they are created; never updates (a running pod's spec cannot change, and the reconciler's patches are not ours to judge). */
export const POD_CREATE = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] };

/** The prefix of our pod annotations (keys.ts POD_ANNOTATION). */
export const ANNOTATION_PREFIX = 'gpu.nvidia.com/';

/** The pod's annotations, an empty map when it has none (admission CEL sees absent fields as absent, not empty). */
export const ANNOTATIONS_VARIABLE = { name: 'annotations', expression: 'has(object.metadata.annotations) ? object.metadata.annotations : {}' };

/** CEL for one annotation's value, "" when absent (needs ANNOTATIONS_VARIABLE). */
export const annotationCel = (key: string): string => `(${celString(key)} in variables.annotations ? variables.annotations[${celString(key)}] : "")`;
