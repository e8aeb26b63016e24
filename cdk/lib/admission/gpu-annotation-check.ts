// The check of a pod's GPU annotations at admission: what the extender
// would otherwise find only at scheduling time (InvalidPodAnnotation) or
// never (a misspelt key is silently ignored) is said when the pod is
// created, as a warning kubectl prints or, in deny mode, a refusal. Every
// namespace, CREATE only.
import { MAX_GROUP_SIZE, POD_ANNOTATION } from '../../../lambdas/scheduling/keys';
import type { KubernetesObject } from '../common/kubernetes-object';
import { alternativeTokensCel, celString, celStrings, memoryMiBCel, rawAlternativesCel } from './gpu-intent-cel';
import { ANNOTATION_PREFIX, annotationCel, ANNOTATIONS_VARIABLE, GPU_INTENT_POLICY_NAMES, POD_CREATE, POLICY_API_VERSION, POLICY_LABELS } from './policy-common';

const ALLOWED_ANNOTATIONS = Object.values(POD_ANNOTATION);
/** The durations parseDuration reads: one or more number-unit pairs. */
const DURATION_PATTERN = '^([0-9]+(\\.[0-9]+)?(ms|s|m|h|d))+$';

/** Warns on (or, with a Deny binding, refuses) unknown `gpu.nvidia.com/*` pod annotation keys and malformed values, as the extender reads them (pod-requirements.ts). */
export function annotationCheckPolicy(): KubernetesObject {
  const model = POD_ANNOTATION.gpuModel;
  const memory = POD_ANNOTATION.gpuMemory;
  const group = POD_ANNOTATION.groupSize;
  const doNotDisrupt = POD_ANNOTATION.doNotDisrupt;
  const runtime = POD_ANNOTATION.expectedRuntime;
  const quoted = (key: string): string => `${celString(`${key}=`)} + ${annotationCel(key)}`;
  return {
    apiVersion: POLICY_API_VERSION,
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: GPU_INTENT_POLICY_NAMES.annotationCheck, labels: POLICY_LABELS },
    spec: {
      failurePolicy: 'Ignore',
      matchConstraints: POD_CREATE,
      matchConditions: [
        { name: 'gpu-annotations', expression: `has(object.metadata.annotations) && object.metadata.annotations.exists(k, k.startsWith(${celString(ANNOTATION_PREFIX)}))` },
      ],
      variables: [
        ANNOTATIONS_VARIABLE,
        { name: 'unknownKeys', expression: `variables.annotations.filter(k, k.startsWith(${celString(ANNOTATION_PREFIX)}) && !(k in ${celStrings(ALLOWED_ANNOTATIONS)}))` },
        { name: 'memoryText', expression: `${annotationCel(memory)}.trim()` },
      ],
      validations: [
        {
          expression: 'size(variables.unknownKeys) == 0',
          messageExpression: `"unknown GPU annotation " + variables.unknownKeys.join(", ") + " (the GPU scheduler ignores it); allowed keys: ${ALLOWED_ANNOTATIONS.join(', ')}"`,
          reason: 'Invalid',
        },
        {
          expression: `!(${celString(model)} in variables.annotations) || (size(${rawAlternativesCel(annotationCel(model))}) > 0 && size(${alternativeTokensCel(annotationCel(model))}) == size(${rawAlternativesCel(annotationCel(model))}))`,
          messageExpression: `${quoted(model)} + " names no GPU model; write one model or alternatives separated by | such as H100|A100"`,
          reason: 'Invalid',
        },
        {
          expression: `!(${celString(memory)} in variables.annotations) || (variables.memoryText != "" && (${memoryMiBCel('variables.memoryText')}) >= 0)`,
          messageExpression: `${quoted(memory)} + " is not memory per GPU: write MiB as a number (81920) or a quantity such as 80Gi"`,
          reason: 'Invalid',
        },
        {
          expression: `!(${celString(group)} in variables.annotations) || (${annotationCel(group)}.trim().matches("^[0-9]{1,6}$") && int(${annotationCel(group)}.trim()) >= 1 && int(${annotationCel(group)}.trim()) <= ${MAX_GROUP_SIZE})`,
          messageExpression: `${quoted(group)} + " is not a whole number of pods from 1 to ${MAX_GROUP_SIZE}"`,
          reason: 'Invalid',
        },
        {
          // The reconciler reads "true" (any case, trimmed) as the opt-in; anything else but "false" is a typo that leaves the pod unprotected.
          expression: `!(${celString(doNotDisrupt)} in variables.annotations) || ${annotationCel(doNotDisrupt)}.trim().lowerAscii() in ["true", "false"]`,
          messageExpression: `${quoted(doNotDisrupt)} + " is neither true nor false (only true keeps Karpenter from disrupting the pod's node while it runs)"`,
          reason: 'Invalid',
        },
        {
          // parseDuration's syntax (lambdas/scheduling/duration.ts); a malformed value counts as unknown: the pod is kept only off blocks in their last minutes.
          expression: `!(${celString(runtime)} in variables.annotations) || ${annotationCel(runtime)}.trim().matches(${celString(DURATION_PATTERN)})`,
          messageExpression: `${quoted(runtime)} + " is not a duration such as 90m, 6h or 1h30m; it counts as unknown, so the pod may be placed on a Capacity Block that ends before it finishes"`,
          reason: 'Invalid',
        },
        {
          expression: `!(${celString(group)} in variables.annotations) || ${celString(POD_ANNOTATION.peerSelector)} in variables.annotations`,
          messageExpression: `${quoted(group)} + " needs ${POD_ANNOTATION.peerSelector} to find the job's other pods"`,
          reason: 'Invalid',
        },
      ],
    },
  };
}
