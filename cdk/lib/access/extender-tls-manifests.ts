// Pure (no CDK imports): the e2e tests apply the same objects.
import { ROTATED_AT_ANNOTATION, SCHEDULER_TLS_KEYS } from '../../../lambdas/certificates/scheduler-secret';
import type { KubernetesObject } from '../common/kubernetes-object';
import { identityPolicyManifests } from './identity-policy';
import { orEmpty, sameOutside, writeLimitPolicyName } from './write-limit-policy';

/** The Kubernetes group the certificate-rotation Lambda's access entry names. */
export const CERTIFICATES_GROUP = 'gpu-scheduling-certificates';

export interface ExtenderTlsManifestProps {
  readonly namespace: string;
  readonly schedulerName: string;
  readonly secretName: string;
}

// The request's object and oldObject are untyped in admission CEL: missing maps are defaulted once here.
const VARIABLES = [
  { name: 'kind', expression: 'request.resource.resource' },
  { name: 'newData', expression: orEmpty('object', 'data', '{}') },
  { name: 'oldData', expression: orEmpty('oldObject', 'data', '{}') },
  { name: 'newTemplateMetadata', expression: orEmpty('object.spec.template', 'metadata', '{}') },
  { name: 'oldTemplateMetadata', expression: orEmpty('oldObject.spec.template', 'metadata', '{}') },
  { name: 'newTemplateAnnotations', expression: orEmpty('variables.newTemplateMetadata', 'annotations', '{}') },
  { name: 'oldTemplateAnnotations', expression: orEmpty('variables.oldTemplateMetadata', 'annotations', '{}') },
] as const;

/**
 * What RBAC cannot say: the rotation Lambda's `patch` of the scheduler's
 * Deployment may change the restart annotation of its pod template and
 * nothing else (not the image, the service account, a privileged flag), and
 * its `patch` of the Secret only the three keys it writes. The API server
 * compares each object after the change with the one before.
 */
export function certificatesWriteLimitManifests({ namespace, schedulerName, secretName }: ExtenderTlsManifestProps): KubernetesObject[] {
  const group = CERTIFICATES_GROUP;
  const onSecrets = (rule: string): string => `variables.kind != 'secrets' || (${rule})`;
  const onDeployments = (rule: string): string => `variables.kind != 'deployments' || (${rule})`;
  // The API server rewrites these on every write; a spec change also bumps the generation.
  const serverManaged = ['managedFields', 'resourceVersion', 'generation'];
  return identityPolicyManifests({
    name: writeLimitPolicyName(group),
    group,
    resourceRules: [
      { apiGroups: [''], apiVersions: ['*'], operations: ['UPDATE'], resources: ['secrets'] },
      { apiGroups: ['apps'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['deployments', 'deployments/*'] },
    ],
    variables: VARIABLES,
    validations: [
      {
        expression: `request.namespace == ${JSON.stringify(namespace)} && request.name == (variables.kind == 'secrets' ? ${JSON.stringify(secretName)} : ${JSON.stringify(schedulerName)})`,
        message: `${group} may write only the Secret ${namespace}/${secretName} and the Deployment ${namespace}/${schedulerName}`,
        reason: 'Forbidden',
      },
      {
        expression: onSecrets(sameOutside('variables.newData', 'variables.oldData', SCHEDULER_TLS_KEYS)),
        message: `${group} may change only these keys of the Secret: ${SCHEDULER_TLS_KEYS.join(', ')}`,
        reason: 'Forbidden',
      },
      {
        expression: onSecrets(`${sameOutside('object', 'oldObject', ['data', 'metadata'])} && ${sameOutside('object.metadata', 'oldObject.metadata', serverManaged)}`),
        message: `${group} may change no other field of the Secret (type, labels, annotations)`,
        reason: 'Forbidden',
      },
      {
        expression: onDeployments(sameOutside('variables.newTemplateAnnotations', 'variables.oldTemplateAnnotations', [ROTATED_AT_ANNOTATION])),
        message: `${group} may change only the pod template annotation ${ROTATED_AT_ANNOTATION} of the Deployment`,
        reason: 'Forbidden',
      },
      {
        expression: onDeployments(
          [
            sameOutside('object', 'oldObject', ['metadata', 'spec']),
            sameOutside('object.metadata', 'oldObject.metadata', serverManaged),
            sameOutside('object.spec', 'oldObject.spec', ['template']),
            sameOutside('object.spec.template', 'oldObject.spec.template', ['metadata']),
            sameOutside('variables.newTemplateMetadata', 'variables.oldTemplateMetadata', ['annotations']),
          ].join(' && '),
        ),
        message: `${group} may change no other field of the Deployment (image, service account, security context, replicas, labels)`,
        reason: 'Forbidden',
      },
    ],
  });
}

/**
 * The scheduler's TLS Secret, created empty (no key material passes through
 * the template: the rotation Lambda fills it), the rotation Lambda's rights
 * (get/patch of that one Secret and of the scheduler's Deployment, to roll its
 * pods onto new files) and the admission policy that narrows both patches.
 * RBAC's `create` cannot be limited by name, hence the empty Secret made here.
 */
export function extenderTlsManifests(props: ExtenderTlsManifestProps): KubernetesObject[] {
  const { namespace, schedulerName, secretName } = props;
  const labels = { 'app.kubernetes.io/name': schedulerName, 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  return [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace, labels }, type: 'Opaque' },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: CERTIFICATES_GROUP, namespace, labels },
      rules: [
        { apiGroups: [''], resources: ['secrets'], resourceNames: [secretName], verbs: ['get', 'patch'] },
        { apiGroups: ['apps'], resources: ['deployments'], resourceNames: [schedulerName], verbs: ['get', 'patch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: CERTIFICATES_GROUP, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CERTIFICATES_GROUP },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: CERTIFICATES_GROUP }],
    },
    ...certificatesWriteLimitManifests(props),
  ];
}
