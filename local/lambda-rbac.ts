// The Lambdas' Kubernetes access on the local control plane: the very groups
// and rules the CDK app grants them on EKS (cdk/lib/access/lambda-rbac-rules.ts),
// so end-to-end tests run with production's least privilege.
import { RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { LAMBDA_KUBERNETES_ACCESS } from '../cdk/lib/access/lambda-rbac-rules';
import type { LambdaComponent } from './credentials';

const toPolicyRules = (rules: readonly { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[] }[]): V1PolicyRule[] =>
  rules.map((rule) => ({ apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] }));

/** Rules per Lambda, as applied locally (taken from the CDK definition). */
export const LAMBDA_RULES: Record<LambdaComponent, V1PolicyRule[]> = {
  extender: toPolicyRules(LAMBDA_KUBERNETES_ACCESS.extender.rules),
  labeler: toPolicyRules(LAMBDA_KUBERNETES_ACCESS.labeler.rules),
  reconciler: toPolicyRules(LAMBDA_KUBERNETES_ACCESS.reconciler.rules),
};

/** The Kubernetes group each Lambda's EKS access entry maps its role to. */
export const lambdaGroup = (component: LambdaComponent): string => LAMBDA_KUBERNETES_ACCESS[component].group;

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
