// RBAC can grant "patch nodes" but not "patch only these labels of nodes". A
// ValidatingAdmissionPolicy can: the API server itself compares the object
// after the change with the one before and refuses anything outside our keys.
// The CDK app deploys these objects and the local harness installs the very
// same ones (local/policies/write-limit-policy.ts), so the tested policy is the
// deployed policy.
import { ownedNodeLabelKeys } from '../../../lambdas/labeler/capacity-labels';
import { KARPENTER_DO_NOT_DISRUPT_ANNOTATION } from '../../../lambdas/reconciler/do-not-disrupt';
import { KARPENTER_DISRUPTION_COST_ANNOTATION } from '../../../lambdas/reconciler/karpenter-disruption-cost';
import { POD_DELETION_COST_ANNOTATION } from '../../../lambdas/reconciler/pod-view';
import { NODE_ANNOTATION, NODE_LABEL, NODE_TAINT, POD_LABEL } from '../../../lambdas/scheduling/keys';
import type { KubernetesObject } from '../common/kubernetes-object';
import type { Validation } from './identity-policy';
import { identityPolicyManifests } from './identity-policy';
import { LAMBDA_KUBERNETES_ACCESS } from './lambda-rbac-rules';

/** What one identity may change on one kind of object; everything else must stay as it was. */
export interface ObjectWriteLimit {
  readonly labels: readonly string[];
  readonly annotations: readonly string[];
  /** Taints it may remove (nodes only); it may add or alter none. */
  readonly removableTaints: readonly string[];
  /**
   * Annotations it may add, or later change and remove, only together with
   * its owner label: one the object already had without that label (the
   * user's own) stays exactly as it is.
   */
  readonly ownedAnnotations?: readonly { readonly annotation: string; readonly ownerLabel: string }[];
}

export interface IdentityWriteLimit {
  /** The Kubernetes group of the Lambda's access entry; requests are matched on it. */
  readonly group: string;
  readonly nodes: ObjectWriteLimit;
  readonly pods: ObjectWriteLimit;
}

const NOTHING: ObjectWriteLimit = { labels: [], annotations: [], removableTaints: [] };

/**
 * The keys each writing Lambda owns. The labeler's are every key it can own,
 * compatibility keys and the capacity keys included, so switching LABEL_KARPENTER_COMPAT or
 * LABEL_GFD_COMPAT on needs no policy change. The extender writes nothing
 * and has no write verb in RBAC, so it needs no policy.
 */
export const LAMBDA_WRITE_LIMITS = {
  labeler: {
    group: LAMBDA_KUBERNETES_ACCESS.labeler.group,
    nodes: {
      labels: ownedNodeLabelKeys({ karpenterLabels: true, gfdLabels: true, manufacturers: [] }),
      annotations: [],
      removableTaints: [NODE_TAINT.gpuLabelsPending],
    },
    pods: NOTHING,
  },
  reconciler: {
    group: LAMBDA_KUBERNETES_ACCESS.reconciler.group,
    nodes: { labels: [NODE_LABEL.gpuHealth], annotations: [NODE_ANNOTATION.gpuUtilization, NODE_ANNOTATION.gpuHealthReasons], removableTaints: [] },
    pods: {
      labels: [POD_LABEL.doNotDisruptOwner],
      annotations: [POD_DELETION_COST_ANNOTATION, KARPENTER_DISRUPTION_COST_ANNOTATION, KARPENTER_DO_NOT_DISRUPT_ANNOTATION],
      removableTaints: [],
      ownedAnnotations: [{ annotation: KARPENTER_DO_NOT_DISRUPT_ANNOTATION, ownerLabel: POD_LABEL.doNotDisruptOwner }],
    },
  },
} as const satisfies Record<string, IdentityWriteLimit>;

/** Name of an identity's policy and of its binding. */
export const writeLimitPolicyName = (group: string): string => `${group}-write-limits`;

/** The start of the API server's refusal, before the validation's own message. */
export const writeLimitDenialPrefix = (group: string): string => {
  const name = writeLimitPolicyName(group);
  return `ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: `;
};

export const celList = (values: readonly string[]): string => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/** Maps `next` and `prev` agree on every key outside `except` (keys may be added or removed only inside it). */
export function sameOutside(next: string, prev: string, except: readonly string[]): string {
  const free = celList(except);
  return `${next}.all(k, k in ${free} || (k in ${prev} && ${next}[k] == ${prev}[k])) && ${prev}.all(k, k in ${free} || k in ${next})`;
}

export const orEmpty = (path: string, field: string, empty: '{}' | '[]'): string => `has(${path}.${field}) ? ${path}.${field} : ${empty}`;

// The request's object and oldObject are untyped (dyn) in admission CEL, so
// missing maps and lists are defaulted here once and read as variables.
const VARIABLES = [
  { name: 'kind', expression: 'request.resource.resource' },
  { name: 'newLabels', expression: orEmpty('object.metadata', 'labels', '{}') },
  { name: 'oldLabels', expression: orEmpty('oldObject.metadata', 'labels', '{}') },
  { name: 'newAnnotations', expression: orEmpty('object.metadata', 'annotations', '{}') },
  { name: 'oldAnnotations', expression: orEmpty('oldObject.metadata', 'annotations', '{}') },
  { name: 'newSpec', expression: orEmpty('object', 'spec', '{}') },
  { name: 'oldSpec', expression: orEmpty('oldObject', 'spec', '{}') },
  { name: 'newTaints', expression: "has(variables.newSpec.taints) ? variables.newSpec.taints : []" },
  { name: 'oldTaints', expression: "has(variables.oldSpec.taints) ? variables.oldSpec.taints : []" },
] as const;

// The API server rewrites these on every write: managedFields (our field
// manager's entry) and resourceVersion.
const SERVER_MANAGED_METADATA = ['managedFields', 'resourceVersion'] as const;

const keysPhrase = (what: string, keys: readonly string[]): string =>
  keys.length === 0 ? `no ${what}` : `only these ${what}: ${keys.join(', ')}`;

function objectValidations(group: string, resource: 'nodes' | 'pods', limit: ObjectWriteLimit): Validation[] {
  const kind = resource === 'nodes' ? 'node' : 'pod';
  const onlyFor = (rule: string): string => `variables.kind != '${resource}' || (${rule})`;
  const validations: Validation[] = [
    {
      expression: onlyFor(sameOutside('variables.newLabels', 'variables.oldLabels', limit.labels)),
      message: `${group} may change ${keysPhrase(`${kind} labels`, limit.labels)}`,
      reason: 'Forbidden',
    },
    {
      expression: onlyFor(sameOutside('variables.newAnnotations', 'variables.oldAnnotations', limit.annotations)),
      message: `${group} may change ${keysPhrase(`${kind} annotations`, limit.annotations)}`,
      reason: 'Forbidden',
    },
  ];
  for (const { annotation, ownerLabel } of limit.ownedAnnotations ?? []) {
    const [key, owner] = [JSON.stringify(annotation), JSON.stringify(ownerLabel)];
    const unchanged = `(${key} in variables.newAnnotations) == (${key} in variables.oldAnnotations) && (!(${key} in variables.oldAnnotations) || variables.newAnnotations[${key}] == variables.oldAnnotations[${key}])`;
    validations.push({
      // Unchanged, or changed on an object that carried our owner label before (ours to change or remove) or carries it after (added by us, now).
      expression: onlyFor(`(${unchanged}) || (${owner} in variables.oldLabels && ${key} in variables.oldAnnotations) || (!(${key} in variables.oldAnnotations) && ${owner} in variables.newLabels)`),
      message: `${group} may change ${annotation} only on a ${kind} it marked with ${ownerLabel}`,
      reason: 'Forbidden',
    });
  }
  if (resource === 'nodes') {
    validations.push(
      {
        // Every taint left was there before; every taint gone was one we may remove.
        expression: onlyFor(
          `variables.newTaints.all(t, t in variables.oldTaints) && variables.oldTaints.all(t, t.key in ${celList(limit.removableTaints)} || t in variables.newTaints)`,
        ),
        message:
          limit.removableTaints.length === 0
            ? `${group} may change no node taints`
            : `${group} may only remove these node taints: ${limit.removableTaints.join(', ')}`,
        reason: 'Forbidden',
      },
      {
        expression: onlyFor(sameOutside('variables.newSpec', 'variables.oldSpec', ['taints'])),
        message: `${group} may change no node spec field${limit.removableTaints.length === 0 ? '' : ' other than its taints'}`,
        reason: 'Forbidden',
      },
    );
  } else {
    validations.push({ expression: onlyFor('variables.newSpec == variables.oldSpec'), message: `${group} may change no pod spec field`, reason: 'Forbidden' });
  }
  validations.push({
    expression: onlyFor(
      `${sameOutside('object', 'oldObject', ['metadata', 'spec'])} && ${sameOutside('object.metadata', 'oldObject.metadata', ['labels', 'annotations', ...SERVER_MANAGED_METADATA])}`,
    ),
    message: `${group} may change no other field of a ${kind} (metadata besides its own keys, status)`,
    reason: 'Forbidden',
  });
  return validations;
}

/** One identity's policy and its binding (identity-policy.ts: its group only, failing closed). */
export function writeLimitManifests(limit: IdentityWriteLimit): KubernetesObject[] {
  return identityPolicyManifests({
    name: writeLimitPolicyName(limit.group),
    group: limit.group,
    // Subresources too: pods/status, pods/ephemeralcontainers, pods/resize, nodes/status carry the whole object.
    resourceRules: [{ apiGroups: [''], apiVersions: ['*'], operations: ['UPDATE'], resources: ['nodes', 'nodes/*', 'pods', 'pods/*'] }],
    variables: VARIABLES,
    validations: [...objectValidations(limit.group, 'nodes', limit.nodes), ...objectValidations(limit.group, 'pods', limit.pods)],
  });
}

/** Every writing Lambda's policy and binding. */
export function lambdaWriteLimitManifests(): KubernetesObject[] {
  return Object.values(LAMBDA_WRITE_LIMITS).flatMap((limit) => writeLimitManifests(limit));
}
