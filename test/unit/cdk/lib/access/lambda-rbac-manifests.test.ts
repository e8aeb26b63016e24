import { describe, expect, it } from 'vitest';
import { lambdaRbacManifests } from '../../../../../cdk/lib/access/lambda-rbac-manifests';
import { LAMBDA_KUBERNETES_ACCESS } from '../../../../../cdk/lib/access/lambda-rbac-rules';

const { reconciler, labeler, extender } = LAMBDA_KUBERNETES_ACCESS;
const PODS = { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch'] };
/** Karpenter's Nominated events of pending pods: list only. */
const EVENTS = { apiGroups: [''], resources: ['events'], verbs: ['list'] };
const NODES = { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] };
/** The reconciler's outcome reads NVIDIA's slices once per run: list only, no watch, no get. */
const SLICES_LIST = { apiGroups: ['resource.k8s.io'], resources: ['resourceslices', 'resourceclaims'], verbs: ['list'] };

const summary = (objects: Record<string, unknown>[]) =>
  objects.map((o) => {
    const metadata = o.metadata as { name: string; namespace?: string };
    return `${String(o.kind)} ${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name}`;
  });

describe('lambdaRbacManifests', () => {
  it('lets the extender list and watch nodes, pods, ResourceSlices and ResourceClaims (its cache lists once, then watches), and nothing else', () => {
    const objects = lambdaRbacManifests(extender);
    expect(summary(objects)).toEqual(['ClusterRole gpu-scheduling-extender', 'ClusterRoleBinding gpu-scheduling-extender']);
    expect(objects[0]?.rules).toEqual([
      { apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['list', 'watch'] },
      { apiGroups: ['resource.k8s.io'], resources: ['resourceslices', 'resourceclaims'], verbs: ['list', 'watch'] },
    ]);
  });

  it('grants the reconciler pods cluster-wide when it is limited to no namespace, and only list on ResourceSlices and ResourceClaims', () => {
    const objects = lambdaRbacManifests(reconciler, []);
    expect(summary(objects)).toEqual(['ClusterRole gpu-scheduling-reconciler', 'ClusterRoleBinding gpu-scheduling-reconciler']);
    expect(objects[0]?.rules).toEqual([NODES, SLICES_LIST, PODS, EVENTS]);
  });

  it('grants pods only in the listed namespaces, nodes (cluster-scoped) still through the ClusterRole, and events about Nodes in default', () => {
    const objects = lambdaRbacManifests(reconciler, ['serving', 'batch', 'serving']);
    expect(summary(objects)).toEqual([
      'ClusterRole gpu-scheduling-reconciler',
      'ClusterRoleBinding gpu-scheduling-reconciler',
      'Role default/gpu-scheduling-reconciler-node-events',
      'RoleBinding default/gpu-scheduling-reconciler-node-events',
      'Role serving/gpu-scheduling-reconciler',
      'RoleBinding serving/gpu-scheduling-reconciler',
      'Role batch/gpu-scheduling-reconciler',
      'RoleBinding batch/gpu-scheduling-reconciler',
    ]);
    expect(objects[0]?.rules).toEqual([NODES, SLICES_LIST]);
    const named = (kind: string, name: string) => objects.filter((o) => o.kind === kind && (o.metadata as { name: string }).name === name);
    for (const role of named('Role', 'gpu-scheduling-reconciler')) expect(role.rules).toEqual([PODS, EVENTS]);
    expect(named('Role', 'gpu-scheduling-reconciler-node-events').map((role) => role.rules)).toEqual([[EVENTS]]);
    expect(lambdaRbacManifests(reconciler, ['default', 'serving']).filter((o) => (o.metadata as { name: string }).name === 'gpu-scheduling-reconciler-node-events')).toEqual([]);
    for (const binding of named('RoleBinding', 'gpu-scheduling-reconciler')) {
      expect(binding).toMatchObject({
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gpu-scheduling-reconciler' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'gpu-scheduling-reconciler' }],
      });
    }
  });

  it('ignores namespaces for a Lambda without namespaced rules', () => {
    const objects = lambdaRbacManifests(labeler, ['serving']);
    expect(summary(objects)).toEqual(['ClusterRole gpu-scheduling-labeler', 'ClusterRoleBinding gpu-scheduling-labeler']);
    expect(objects[0]?.rules).toEqual([NODES]);
  });
});
