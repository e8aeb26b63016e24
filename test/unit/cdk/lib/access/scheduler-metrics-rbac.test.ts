import { describe, expect, it } from 'vitest';
import { schedulerMetricsReaderManifests } from '../../../../../cdk/lib/access/scheduler-metrics-rbac';

const objects = schedulerMetricsReaderManifests({ namespace: 'kube-system', schedulerName: 'gpu-scheduler', port: 10259, group: 'gpu-scheduling-reconciler' });
const NAME = 'gpu-scheduling-reconciler-scheduler-metrics';

interface Policy {
  spec: { failurePolicy: string; matchConstraints: { resourceRules: { operations: string[]; resources: string[] }[] }; validations: { expression: string }[] };
}

describe('schedulerMetricsReaderManifests', () => {
  it('grants the group only pods list and pods/proxy get, only in the scheduler’s namespace', () => {
    expect(objects.map((o) => o.kind)).toEqual(['Role', 'RoleBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    const [role, binding] = objects;
    expect(role).toMatchObject({ metadata: { name: NAME, namespace: 'kube-system' } });
    expect(role?.rules).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
    ]);
    expect(binding).toMatchObject({
      metadata: { name: NAME, namespace: 'kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAME },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'gpu-scheduling-reconciler' }],
    });
  });

  it('narrows every proxy CONNECT of the group to the Deployment’s pod names, the port and /metrics, failing closed', () => {
    const policy = objects[2] as unknown as Policy;
    expect(policy.spec.failurePolicy).toBe('Fail');
    expect(policy.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: [''], apiVersions: ['*'], operations: ['CONNECT'], resources: ['pods/proxy', 'services/proxy', 'nodes/proxy'] },
    ]);
    const [target, path] = policy.spec.validations.map((v) => v.expression);
    expect(target).toContain("request.namespace == \"kube-system\"");
    // The pattern the API server evaluates, checked here with the same regular expression.
    const pattern = new RegExp(JSON.parse(/matches\((".*")\)/.exec(target ?? '')?.[1] ?? '""') as string);
    expect(pattern.test('https:gpu-scheduler-5d8f7c9b4-x7k2p:10259')).toBe(true);
    for (const other of ['https:gpu-scheduler-5d8f7c9b4-x7k2p:10250', 'https:coredns-5d8f7c9b4-x7k2p:10259', 'gpu-scheduler-5d8f7c9b4-x7k2p', 'https:gpu-scheduler-x:10259']) {
      expect(pattern.test(other), other).toBe(false);
    }
    expect(path).toBe("has(object.path) && object.path in ['/metrics', 'metrics']");
    expect(objects[3]).toMatchObject({ metadata: { name: NAME }, spec: { policyName: NAME, validationActions: ['Deny'] } });
  });
});
