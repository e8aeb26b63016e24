// Pure (no CDK imports): the local harness applies the same objects.
import type { KubernetesObject } from '../scheduler/second-scheduler-manifests';

/**
 * What the reconciler needs to read the second scheduler's /metrics through
 * the API server's pod proxy, in the scheduler's namespace only: list its pods
 * (to find the replicas and whether they are ready) and GET through
 * pods/proxy. RBAC cannot narrow either to the Deployment's pods: their names
 * are generated, and resourceNames cannot restrict a list. GET is the only
 * proxy verb, so nothing can be changed through it.
 */
export function schedulerMetricsReaderManifests(namespace: string, group: string): KubernetesObject[] {
  const name = `${group}-scheduler-metrics`;
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace, labels },
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
        { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
  ];
}
