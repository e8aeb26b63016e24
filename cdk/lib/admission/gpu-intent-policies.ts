// Admission policies that turn a GPU pod's intent into what every scheduler
// and autoscaler reads. Pure (no CDK imports): the CDK app deploys these
// objects and the local harness installs the very same ones
// (local/policies/gpu-intent-policies.ts).
//
// - opt-in (MutatingAdmissionPolicy): in a namespace labelled
//   NAMESPACE_OPT_IN, a GPU pod left to the default scheduler gets
//   `schedulerName: gpu-scheduler` and a toleration of each GPU taint
//   (`admission.gpuTaints`).
// - affinity (MutatingAdmissionPolicy): in the same namespaces, a pod's
//   `gpu.nvidia.com/model` and `gpu.nvidia.com/memory` become required node
//   affinity over every labeller's keys (gpu-intent-cel.ts).
// - annotation check (ValidatingAdmissionPolicy, every namespace): unknown
//   `gpu.nvidia.com/*` keys and malformed values get a warning, or a
//   refusal with `admission.gpuAnnotations: deny`.
// All act on CREATE only: a running pod's spec cannot change, and updates
// by the reconciler (deletion cost) must never be judged here. All have
// failurePolicy Ignore: a policy that cannot be evaluated lets the pod
// through unchanged rather than stopping pod creation across the cluster.
// The mutating two exist from Kubernetes 1.36 (GA) only.
import { GPU_RESOURCE, MIG_RESOURCE_PREFIX, POD_ANNOTATION, SHARED_GPU_RESOURCE } from '../../../lambdas/scheduling/keys';
import type { AppConfig, KubernetesMinorVersion, NodeTaint } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { annotationCheckPolicy } from './gpu-annotation-check';
import { AFFINITY_LABELLERS, alternativeTokensCel, celString, knownModelValuesCel, memoryBandsCel, memoryMiBCel } from './gpu-intent-cel';
import { ANNOTATION_PREFIX, annotationCel, ANNOTATIONS_VARIABLE, GPU_INTENT_POLICY_NAMES, POD_CREATE, POLICY_API_VERSION, POLICY_LABELS } from './policy-common';

/** The namespace label that opts a namespace's GPU pods in to the GPU scheduler. */
export const NAMESPACE_OPT_IN = { key: 'gpu.nvidia.com/scheduler', value: 'enabled' } as const;

/** The taint the stack's GPU node groups carry (cluster.eachGpuNodeGroup.taints) and the EKS convention for GPU nodes. */
export const GPU_NODE_TAINT_KEY = GPU_RESOURCE;

/** The config's taint effects (EKS's spelling) as a pod's toleration writes them. */
const TOLERATION_EFFECT: Readonly<Record<NodeTaint['effect'], string>> = { NO_SCHEDULE: 'NoSchedule', PREFER_NO_SCHEDULE: 'PreferNoSchedule', NO_EXECUTE: 'NoExecute' };

/** What the opt-in adds for the GPU nodes' taints: one `Exists` toleration per key and effect (any value). */
export function gpuTolerations(taints: readonly Pick<NodeTaint, 'key' | 'effect'>[]): { key: string; operator: 'Exists'; effect: string }[] {
  const seen = new Set<string>();
  return taints.flatMap((taint) => {
    const effect = TOLERATION_EFFECT[taint.effect];
    const id = `${taint.key}\u0000${effect}`;
    if (seen.has(id)) return [];
    seen.add(id);
    return [{ key: taint.key, operator: 'Exists' as const, effect }];
  });
}

export type AnnotationCheckAction = 'warn' | 'deny';

export interface GpuIntentOptions {
  /** The GPU scheduler's profile name (scheduler.name). */
  readonly schedulerName: string;
  readonly annotationCheck: AnnotationCheckAction;
  /**
   * The cluster's minor version. MutatingAdmissionPolicy is GA from 1.36;
   * on 1.35 it is beta and off (EKS enables no beta API), so there the
   * mutating policies are left out: creating them would fail the deploy.
   */
  readonly kubernetesVersion: KubernetesMinorVersion;
  /** The GPU nodes' taints (`admission.gpuTaints`): the opt-in tolerates each. */
  readonly gpuTaints: readonly Pick<NodeTaint, 'key' | 'effect'>[];
}

/** The options of a configuration: its scheduler's name, the annotation check, the cluster version and the GPU taints. */
export function gpuIntentOptionsOf(config: Pick<AppConfig, 'scheduler' | 'admission' | 'kubernetesVersion'>): GpuIntentOptions {
  return {
    schedulerName: config.scheduler.name,
    annotationCheck: config.admission.gpuAnnotations,
    kubernetesVersion: config.kubernetesVersion,
    gpuTaints: config.admission.gpuTaints,
  };
}

/** The first minor version that serves admissionregistration.k8s.io/v1 MutatingAdmissionPolicy. */
const MUTATING_POLICY_GA = '1.36';

export { GPU_INTENT_POLICY_NAMES };

const OPTED_IN_NAMESPACES = { namespaceSelector: { matchLabels: { [NAMESPACE_OPT_IN.key]: NAMESPACE_OPT_IN.value } } };

const isGpuResource = (r: string): string =>
  `${r} == ${celString(GPU_RESOURCE)} || ${r} == ${celString(SHARED_GPU_RESOURCE)} || ${r}.startsWith(${celString(MIG_RESOURCE_PREFIX)})`;
const asksGpu = (c: string): string =>
  `has(${c}.resources) && ((has(${c}.resources.requests) && ${c}.resources.requests.exists(r, ${isGpuResource('r')})) || (has(${c}.resources.limits) && ${c}.resources.limits.exists(r, ${isGpuResource('r')})))`;

/** Pods whose containers ask for NVIDIA GPUs (whole, shared or MIG) or that carry our annotations. */
const GPU_POD = [
  `object.spec.containers.exists(c, ${asksGpu('c')})`,
  `(has(object.spec.initContainers) && object.spec.initContainers.exists(c, ${asksGpu('c')}))`,
  `(has(object.metadata.annotations) && object.metadata.annotations.exists(k, k.startsWith(${celString(ANNOTATION_PREFIX)})))`,
].join(' || ');

/** The API server defaults an empty schedulerName to default-scheduler before admission. */
const DEFAULT_SCHEDULER = `!has(object.spec.schedulerName) || object.spec.schedulerName in ["", "default-scheduler"]`;


function optInPolicy(options: GpuIntentOptions): KubernetesObject {
  const tolerations = gpuTolerations(options.gpuTaints).map((t) => `{"key": ${celString(t.key)}, "operator": "Exists", "effect": ${celString(t.effect)}}`);
  return {
    apiVersion: POLICY_API_VERSION,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: GPU_INTENT_POLICY_NAMES.optIn, labels: POLICY_LABELS },
    spec: {
      failurePolicy: 'Ignore',
      reinvocationPolicy: 'Never',
      matchConstraints: POD_CREATE,
      matchConditions: [
        { name: 'gpu-pod', expression: GPU_POD },
        { name: 'left-to-the-default-scheduler', expression: DEFAULT_SCHEDULER },
      ],
      variables: [
        { name: 'tolerations', expression: 'has(object.spec.tolerations) ? object.spec.tolerations : []' },
        {
          // Each GPU taint's toleration the pod lacks: one of the key with this effect or none (any value), or of every taint, already lets the pod on.
          name: 'missing',
          expression:
            `[${tolerations.join(', ')}].filter(g, !variables.tolerations.exists(t, ` +
            `((has(t.key) && t.key == g.key) || ((!has(t.key) || t.key == "") && has(t.operator) && t.operator == "Exists")) && (!has(t.effect) || t.effect == "" || t.effect == g.effect)))`,
        },
      ],
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: `Object{spec: Object.spec{schedulerName: ${celString(options.schedulerName)}}}` } },
        {
          // tolerations is an atomic list, which an apply configuration may not change: a JSON patch appends instead.
          patchType: 'JSONPatch',
          jsonPatch: {
            expression:
              'size(variables.missing) == 0 ? [] : (has(object.spec.tolerations) ? variables.missing.map(g, JSONPatch{op: "add", path: "/spec/tolerations/-", value: g}) : ' +
              '[JSONPatch{op: "add", path: "/spec/tolerations", value: variables.missing}])',
          },
        },
      ],
    },
  };
}

/** A node selector requirement as a plain map (JSON patch values need no schema types); dyn() because CEL map literals must be of one value type. */
const requirement = (key: string, operator: string, values: string): string => `{"key": dyn(${key}), "operator": dyn(${operator}), "values": dyn(${values})}`;
const copyRequirements = (list: string): string => `${list}.map(r, ${requirement('r.key', 'r.operator', 'has(r.values) ? r.values : []')})`;

function affinityPolicy(options: GpuIntentOptions): KubernetesObject {
  const podRequired = 'object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution';
  const perLabeller = AFFINITY_LABELLERS.flatMap(({ labeller, modelKey, memoryKey }) => {
    const values = `variables.matched.filter(e, e.l == ${celString(labeller)}).map(e, e.v)`;
    const model = `(variables.modelTranslated ? [${requirement(celString(modelKey), '"In"', values)}] : [])`;
    const memory = `(variables.memoryTranslated ? [${requirement(celString(memoryKey), '"Gt"', '[string(variables.threshold)]')}] : [])`;
    return [
      // A labeller that writes none of the named models' values gets no term: a memory-only term would admit any model.
      { name: `${labeller}Expressions`, expression: `variables.modelTranslated && size(${values}) == 0 ? [] : ${model} + ${memory}` },
      {
        // AND of the pod's own required terms with ours: one term per pair (the cross product), the pod's expressions and fields kept.
        name: `${labeller}Terms`,
        expression:
          `size(variables.${labeller}Expressions) == 0 ? [] : (size(variables.podTerms) == 0 ? [{"matchExpressions": variables.${labeller}Expressions}] : ` +
          `variables.podTerms.map(p, {"matchExpressions": (has(p.matchExpressions) ? ${copyRequirements('p.matchExpressions')} : []) + variables.${labeller}Expressions, ` +
          `"matchFields": has(p.matchFields) ? ${copyRequirements('p.matchFields')} : []}))`,
      },
    ];
  });
  return {
    apiVersion: POLICY_API_VERSION,
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: GPU_INTENT_POLICY_NAMES.affinity, labels: POLICY_LABELS },
    spec: {
      failurePolicy: 'Ignore',
      reinvocationPolicy: 'Never',
      matchConstraints: POD_CREATE,
      matchConditions: [
        {
          name: 'gpu-intent',
          expression: `has(object.metadata.annotations) && (${celString(POD_ANNOTATION.gpuModel)} in object.metadata.annotations || ${celString(POD_ANNOTATION.gpuMemory)} in object.metadata.annotations)`,
        },
        { name: 'for-the-gpu-scheduler', expression: `${DEFAULT_SCHEDULER} || object.spec.schedulerName == ${celString(options.schedulerName)}` },
      ],
      variables: [
        ANNOTATIONS_VARIABLE,
        { name: 'alternatives', expression: alternativeTokensCel(annotationCel(POD_ANNOTATION.gpuModel)) },
        { name: 'known', expression: knownModelValuesCel() },
        { name: 'matched', expression: 'variables.known.filter(e, variables.alternatives.exists(a, a.all(t, t in e.t)))' },
        {
          // Every alternative names a known model: a name outside the tables could match nodes no table lists, so then the model stays the extender's alone.
          name: 'modelTranslated',
          expression: 'size(variables.alternatives) > 0 && variables.alternatives.all(a, variables.known.exists(e, a.all(t, t in e.t)))',
        },
        { name: 'memoryText', expression: `${annotationCel(POD_ANNOTATION.gpuMemory)}.trim()` },
        { name: 'memoryMiB', expression: `variables.memoryText == "" ? -1 : (${memoryMiBCel('variables.memoryText')})` },
        { name: 'memoryTranslated', expression: 'variables.memoryMiB > 0' },
        { name: 'bands', expression: memoryBandsCel() },
        // The named models' marketed sizes decide (every size when no known model is named), as the extender reads a node of that model.
        { name: 'bandModels', expression: 'variables.modelTranslated ? variables.matched.map(e, e.m) : ["*"]' },
        {
          name: 'thresholds',
          expression:
            'variables.bandModels.map(m, variables.bands[m].filter(b, b[0] >= variables.memoryMiB))' +
            '.map(l, (size(l) > 0 && l[0][1] < variables.memoryMiB ? l[0][1] : variables.memoryMiB) - 1)',
        },
        { name: 'threshold', expression: 'variables.thresholds.filter(t, variables.thresholds.all(u, t <= u))[0]' },
        {
          name: 'podTerms',
          expression: `has(object.spec.affinity) && has(object.spec.affinity.nodeAffinity) && has(${podRequired}) && has(${podRequired}.nodeSelectorTerms) ? ${podRequired}.nodeSelectorTerms : []`,
        },
        ...perLabeller,
        { name: 'terms', expression: AFFINITY_LABELLERS.map(({ labeller }) => `variables.${labeller}Terms`).join(' + ') },
      ],
      mutations: [
        {
          // nodeSelectorTerms is an atomic list, which an apply configuration may not change: a JSON patch adds or replaces the
          // required node selector (the pod's terms already combined with ours), creating the parents it lacks; preferred terms are left as they are.
          patchType: 'JSONPatch',
          jsonPatch: {
            expression:
              'size(variables.terms) == 0 ? [] : ' +
              '(!has(object.spec.affinity) ? [JSONPatch{op: "add", path: "/spec/affinity", value: {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": variables.terms}}}}] : ' +
              '(!has(object.spec.affinity.nodeAffinity) ? [JSONPatch{op: "add", path: "/spec/affinity/nodeAffinity", value: {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": variables.terms}}}] : ' +
              `[JSONPatch{op: "add", path: "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution", value: {"nodeSelectorTerms": variables.terms}}]))`,
          },
        },
      ],
    },
  };
}

const binding = (kind: 'MutatingAdmissionPolicyBinding' | 'ValidatingAdmissionPolicyBinding', name: string, spec: Record<string, unknown>): KubernetesObject => ({
  apiVersion: POLICY_API_VERSION,
  kind,
  metadata: { name, labels: POLICY_LABELS },
  spec: { policyName: name, ...spec },
});

/** The three policies and their bindings (only the validating one before 1.36), in the order to apply them. */
export function gpuIntentManifests(options: GpuIntentOptions): KubernetesObject[] {
  const { optIn, affinity, annotationCheck } = GPU_INTENT_POLICY_NAMES;
  const mutating = Number(options.kubernetesVersion.split('.')[1]) >= Number(MUTATING_POLICY_GA.split('.')[1]);
  return [
    ...(mutating
      ? [
          optInPolicy(options),
          binding('MutatingAdmissionPolicyBinding', optIn, { matchResources: OPTED_IN_NAMESPACES }),
          affinityPolicy(options),
          binding('MutatingAdmissionPolicyBinding', affinity, { matchResources: OPTED_IN_NAMESPACES }),
        ]
      : []),
    annotationCheckPolicy(),
    binding('ValidatingAdmissionPolicyBinding', annotationCheck, { validationActions: [options.annotationCheck === 'deny' ? 'Deny' : 'Warn'] }),
  ];
}
