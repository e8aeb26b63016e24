import type { KubernetesObject } from '../common/kubernetes-object';

/** The Kubernetes group the certificate-rotation Lambda's access entry names. */
export const CERTIFICATES_GROUP = 'gpu-scheduling-certificates';

export interface ExtenderTlsManifestProps {
  readonly namespace: string;
  readonly schedulerName: string;
  readonly secretName: string;
}

/**
 * The scheduler's TLS Secret, created empty (no key material passes through
 * the template: the rotation Lambda fills it), and the rotation Lambda's
 * rights: get/update of that one Secret and get/patch of the scheduler's
 * Deployment (to roll its pods onto new files). RBAC's `create` cannot be
 * limited by name, hence the empty Secret made here.
 */
export function extenderTlsManifests({ namespace, schedulerName, secretName }: ExtenderTlsManifestProps): KubernetesObject[] {
  const labels = { 'app.kubernetes.io/name': schedulerName, 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  return [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace, labels }, type: 'Opaque' },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: CERTIFICATES_GROUP, namespace, labels },
      rules: [
        { apiGroups: [''], resources: ['secrets'], resourceNames: [secretName], verbs: ['get', 'update'] },
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
  ];
}
