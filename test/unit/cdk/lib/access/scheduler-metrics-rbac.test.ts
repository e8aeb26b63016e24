import { describe, expect, it } from 'vitest';
import { schedulerMetricsReaderManifests } from '../../../../../cdk/lib/access/scheduler-metrics-rbac';

describe('schedulerMetricsReaderManifests', () => {
  it('grants the group only pods list and pods/proxy get, only in the scheduler’s namespace', () => {
    const [role, binding, ...rest] = schedulerMetricsReaderManifests('kube-system', 'gpu-scheduling-reconciler');
    expect(rest).toEqual([]);
    expect(role).toMatchObject({ kind: 'Role', metadata: { name: 'gpu-scheduling-reconciler-scheduler-metrics', namespace: 'kube-system' } });
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
    ]);
    expect(binding).toMatchObject({
      kind: 'RoleBinding',
      metadata: { name: 'gpu-scheduling-reconciler-scheduler-metrics', namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gpu-scheduling-reconciler-scheduler-metrics' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'gpu-scheduling-reconciler' }],
    });
  });
});
