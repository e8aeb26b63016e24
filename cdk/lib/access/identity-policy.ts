// Pure (no CDK imports): the local harness applies the same objects.
import type { KubernetesObject } from '../common/kubernetes-object';

export interface Validation {
  readonly expression: string;
  readonly message: string;
  readonly reason: 'Forbidden';
}

export interface IdentityPolicy {
  /** Name of the policy and of its binding. */
  readonly name: string;
  /** The Kubernetes group whose requests it judges; nobody else's. */
  readonly group: string;
  readonly resourceRules: readonly Record<string, readonly string[]>[];
  readonly variables?: readonly { readonly name: string; readonly expression: string }[];
  readonly validations: readonly Validation[];
}

/**
 * A ValidatingAdmissionPolicy and its Deny binding for one identity. Matched
 * only on requests whose user is in the identity's group (matchConditions),
 * so it can never refuse a kubelet's, a controller's or a person's request;
 * failurePolicy Fail then means that if the policy cannot be evaluated, our
 * Lambda's request is refused rather than let through.
 */
export function identityPolicyManifests(policy: IdentityPolicy): KubernetesObject[] {
  const { name } = policy;
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name, labels },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: policy.resourceRules.map((rule) => ({ ...rule })) },
        matchConditions: [
          { name: 'from-this-identity', expression: `has(request.userInfo.groups) && ${JSON.stringify(policy.group)} in request.userInfo.groups` },
        ],
        ...(policy.variables && { variables: policy.variables.map((variable) => ({ ...variable })) }),
        validations: policy.validations.map((validation) => ({ ...validation })),
      },
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name, labels },
      spec: { policyName: name, validationActions: ['Deny'] },
    },
  ];
}
