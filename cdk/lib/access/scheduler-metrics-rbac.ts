// Pure (no CDK imports): the local harness applies the same objects.
import type { KubernetesObject } from '../common/kubernetes-object';
import { identityPolicyManifests } from './identity-policy';

export interface SchedulerMetricsReader {
  /** The second scheduler's namespace. */
  readonly namespace: string;
  /** Its Deployment's name: its pods are `<name>-<hash>-<suffix>`. */
  readonly schedulerName: string;
  /** kube-scheduler's secure port. */
  readonly port: number;
  /** The reader's Kubernetes group (the reconciler's). */
  readonly group: string;
}

/** Name of the Role, RoleBinding, policy and policy binding. */
export const schedulerMetricsReaderName = (group: string): string => `${group}-scheduler-metrics`;

/**
 * What the reconciler needs to read the second scheduler's /metrics through
 * the API server's pod proxy: in the scheduler's namespace only, list its
 * pods (to find the replicas and whether they are ready) and GET through
 * pods/proxy. RBAC cannot narrow either to the Deployment's pods: their names
 * are generated, and resourceNames cannot restrict a list. So an admission
 * policy narrows the proxy further, as the API server sees each proxied
 * request (a CONNECT of pods/proxy): only to `https:<name>-<hash>-<suffix>:<port>`
 * in that namespace, only the path /metrics. Without it, `pods/proxy get`
 * would reach every HTTP endpoint of every pod in the namespace (kube-system
 * by default).
 */
export function schedulerMetricsReaderManifests(reader: SchedulerMetricsReader): KubernetesObject[] {
  const { namespace, group } = reader;
  const name = schedulerMetricsReaderName(group);
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  const target = `^https:${reader.schedulerName}-[a-z0-9]+-[a-z0-9]+:${reader.port}$`;
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
    ...identityPolicyManifests({
      name,
      group,
      // Every proxy the group could be granted; only the scheduler's pods pass.
      resourceRules: [{ apiGroups: [''], apiVersions: ['*'], operations: ['CONNECT'], resources: ['pods/proxy', 'services/proxy', 'nodes/proxy'] }],
      validations: [
        {
          expression: `request.resource.resource == 'pods' && request.namespace == ${JSON.stringify(namespace)} && request.name.matches(${JSON.stringify(target)})`,
          message: `${group} may proxy only to the ${reader.schedulerName} pods' port ${reader.port} in ${namespace}`,
          reason: 'Forbidden',
        },
        { expression: "has(object.path) && object.path in ['/metrics', 'metrics']", message: `${group} may proxy only to /metrics`, reason: 'Forbidden' },
      ],
    }),
  ];
}
