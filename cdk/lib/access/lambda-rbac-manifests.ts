// Pure (no CDK imports): the local harness applies the same objects.
import type { KubernetesObject } from '../common/kubernetes-object';
import type { LambdaKubernetesAccess, PolicyRule } from './lambda-rbac-rules';

const copyRule = (rule: PolicyRule): PolicyRule => ({ apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] });

/**
 * The RBAC objects of one Lambda's group: a ClusterRole and its binding, and,
 * when `namespaces` are given, a Role and a RoleBinding in each of them for
 * its namespaced rules (which are then left out of the ClusterRole), and
 * then a Role to list events in its node-events namespace. kubectl
 * applies a Role only into a namespace that exists.
 */
export function lambdaRbacManifests(access: LambdaKubernetesAccess, namespaces: readonly string[] = []): KubernetesObject[] {
  const { group } = access;
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  const namespaced = access.namespacedRules ?? [];
  const scoped = namespaced.length > 0 && namespaces.length > 0;
  const clusterRules = scoped ? access.rules : [...access.rules, ...namespaced];
  const subjects = [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }];
  const objects: KubernetesObject[] = [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: group, labels }, rules: clusterRules.map(copyRule) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: group, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: group },
      subjects,
    },
  ];
  if (!scoped) return objects;
  const eventsNamespace = access.nodeEventsNamespace;
  if (eventsNamespace !== undefined && !namespaces.includes(eventsNamespace)) {
    const name = `${group}-node-events`;
    objects.push(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: eventsNamespace, labels }, rules: [{ apiGroups: [''], resources: ['events'], verbs: ['list'] }] },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace: eventsNamespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects,
      },
    );
  }
  for (const namespace of new Set(namespaces)) {
    objects.push(
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: group, namespace, labels }, rules: namespaced.map(copyRule) },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: group, namespace, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: group },
        subjects,
      },
    );
  }
  return objects;
}
