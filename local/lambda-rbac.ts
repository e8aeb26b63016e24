// The narrow ClusterRoles the Lambdas get on EKS (via access entries mapped to
// these groups), reproduced on the local control plane so tests exercise the
// same least privilege. Keep in step with the CDK access entries.
import { RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { lambdaGroup, type LambdaComponent } from './credentials';

export const LAMBDA_RULES: Record<LambdaComponent, V1PolicyRule[]> = {
  extender: [{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] }],
  labeler: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] }],
  reconciler: [
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'patch'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'patch'] },
  ],
};

export async function applyLambdaRbac(admin: KubeConfig): Promise<void> {
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  for (const [component, rules] of Object.entries(LAMBDA_RULES) as [LambdaComponent, V1PolicyRule[]][]) {
    const name = lambdaGroup(component);
    await rbac.createClusterRole({ body: { metadata: { name }, rules } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name }],
      },
    });
  }
}
