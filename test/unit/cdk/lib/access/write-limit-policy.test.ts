import { describe, expect, it } from 'vitest';
import { LAMBDA_KUBERNETES_ACCESS } from '../../../../../cdk/lib/access/lambda-rbac-rules';
import { LAMBDA_WRITE_LIMITS, lambdaWriteLimitManifests, writeLimitManifests } from '../../../../../cdk/lib/access/write-limit-policy';
import { GFD_GPU_LABEL, GPU_LABEL, KARPENTER_GPU_LABEL } from '../../../../../lambdas/labeler/gpu-labels';
import { POD_DELETION_COST_ANNOTATION } from '../../../../../lambdas/reconciler/pod-view';
import { NODE_ANNOTATION, NODE_LABEL, NODE_TAINT, POD_LABEL } from '../../../../../lambdas/scheduling/keys';

// What the CEL accepts and refuses is proven against the real kube-apiserver
// in test/e2e/write-limits.test.ts; this file pins what must not drift.
interface PolicySpec {
  failurePolicy: string;
  matchConstraints: { resourceRules: { apiGroups: string[]; operations: string[]; resources: string[] }[] };
  matchConditions: { name: string; expression: string }[];
  validations: { expression: string; message: string }[];
}

const policyOf = (component: keyof typeof LAMBDA_WRITE_LIMITS): PolicySpec => {
  const [policy] = writeLimitManifests(LAMBDA_WRITE_LIMITS[component]);
  return policy?.spec as PolicySpec;
};

describe('write-limit policies', () => {
  it('cover the labeler and the reconciler, each matched on its own access-entry group only', () => {
    for (const component of ['labeler', 'reconciler'] as const) {
      const spec = policyOf(component);
      const group = LAMBDA_KUBERNETES_ACCESS[component].group;
      expect(LAMBDA_WRITE_LIMITS[component].group).toBe(group);
      expect(spec.matchConditions).toEqual([
        { name: 'from-this-identity', expression: `has(request.userInfo.groups) && "${group}" in request.userInfo.groups` },
      ]);
      expect(spec.failurePolicy).toBe('Fail');
      // Updates only (a patch is an UPDATE to admission), of core nodes and pods and their subresources.
      expect(spec.matchConstraints.resourceRules).toEqual([
        { apiGroups: [''], apiVersions: ['*'], operations: ['UPDATE'], resources: ['nodes', 'nodes/*', 'pods', 'pods/*'] },
      ]);
    }
  });

  it('allow the labeler every label key it can own (GPU, compatibility and capacity keys), the start-up taint, and nothing on pods', () => {
    const { nodes, pods } = LAMBDA_WRITE_LIMITS.labeler;
    expect([...nodes.labels].sort()).toEqual(
      [
        ...Object.values(GPU_LABEL),
        ...Object.values(KARPENTER_GPU_LABEL),
        ...Object.values(GFD_GPU_LABEL),
        'gpu.nvidia.com/capacity-type',
        'gpu.nvidia.com/capacity-reservation-end',
        'gpu.nvidia.com/capacity-reservation-type',
      ].sort(),
    );
    expect(nodes.annotations).toEqual([]);
    expect(nodes.removableTaints).toEqual([NODE_TAINT.gpuLabelsPending]);
    expect(pods).toEqual({ labels: [], annotations: [], removableTaints: [] });
    const taintRule = policyOf('labeler').validations.find((v) => v.message.includes('taints'));
    expect(taintRule?.expression).toContain(`t.key in ["${NODE_TAINT.gpuLabelsPending}"]`);
  });

  it('allow the reconciler the deletion cost (and Karpenter\'s copy of it) and its do-not-disrupt on pods, the utilization and the GPU health label and reasons on nodes, nothing else', () => {
    const { nodes, pods } = LAMBDA_WRITE_LIMITS.reconciler;
    expect(nodes).toEqual({
      labels: ['gpu.nvidia.com/health'],
      annotations: [NODE_ANNOTATION.gpuUtilization, 'gpu.nvidia.com/health-reasons'],
      removableTaints: [],
    });
    expect(nodes.labels).toEqual([NODE_LABEL.gpuHealth]);
    expect(pods).toEqual({
      labels: [POD_LABEL.doNotDisruptOwner],
      annotations: [POD_DELETION_COST_ANNOTATION, 'karpenter.sh/disruption-cost', 'karpenter.sh/do-not-disrupt'],
      removableTaints: [],
      ownedAnnotations: [{ annotation: 'karpenter.sh/do-not-disrupt', ownerLabel: POD_LABEL.doNotDisruptOwner }],
    });
    const owned = policyOf('reconciler').validations.find((v) => v.message.includes('only on a pod it marked'));
    expect(owned?.expression).toContain(`"${POD_LABEL.doNotDisruptOwner}" in variables.oldLabels`);
  });

  it('check labels, annotations, taints, spec and the rest of each kind, each with a message naming the group', () => {
    for (const component of ['labeler', 'reconciler'] as const) {
      const { group } = LAMBDA_WRITE_LIMITS[component];
      const { validations } = policyOf(component);
      // Nodes: labels, annotations, taints, spec, the rest; pods: labels, annotations, spec, the rest (and the reconciler's owned do-not-disrupt).
      expect(validations).toHaveLength(component === 'reconciler' ? 5 + 5 : 5 + 4);
      for (const v of validations) {
        expect(v.message.startsWith(`${group} may `)).toBe(true);
        expect(v.expression).toMatch(/^variables\.kind != '(nodes|pods)' \|\| \(/);
      }
    }
  });

  it('bind each policy to deny', () => {
    const objects = lambdaWriteLimitManifests();
    expect(objects.map((o) => `${String(o.kind)} ${(o.metadata as { name: string }).name}`)).toEqual([
      'ValidatingAdmissionPolicy gpu-scheduling-labeler-write-limits',
      'ValidatingAdmissionPolicyBinding gpu-scheduling-labeler-write-limits',
      'ValidatingAdmissionPolicy gpu-scheduling-reconciler-write-limits',
      'ValidatingAdmissionPolicyBinding gpu-scheduling-reconciler-write-limits',
    ]);
    for (const binding of objects.filter((o) => o.kind === 'ValidatingAdmissionPolicyBinding')) {
      const name = (binding.metadata as { name: string }).name;
      expect(binding.spec).toEqual({ policyName: name, validationActions: ['Deny'] });
    }
  });
});
