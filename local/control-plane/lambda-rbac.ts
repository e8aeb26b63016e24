// The Lambdas' Kubernetes access on the local control plane: the very RBAC
// objects the CDK app applies on EKS (cdk/lib/access/lambda-rbac-manifests.ts),
// so end-to-end tests run with production's least privilege. Cluster-wide, as
// the CDK app grants it when the reconciler is limited to no namespaces: test
// files each make namespaces of their own.
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { lambdaRbacManifests } from '../../cdk/lib/access/lambda-rbac-manifests';
import { LAMBDA_KUBERNETES_ACCESS } from '../../cdk/lib/access/lambda-rbac-rules';

/** The Lambdas whose identities the local control plane knows: users in groups of the same name. */
export const LAMBDA_COMPONENTS = ['extender', 'labeler', 'reconciler'] as const;
export type LambdaComponent = (typeof LAMBDA_COMPONENTS)[number];

/** The Kubernetes group each Lambda's EKS access entry maps its role to. */
export const lambdaGroup = (component: LambdaComponent): string => LAMBDA_KUBERNETES_ACCESS[component].group;

export async function applyLambdaRbac(admin: KubeConfig): Promise<void> {
  const objects = KubernetesObjectApi.makeApiClient(admin);
  for (const access of Object.values(LAMBDA_KUBERNETES_ACCESS)) {
    for (const manifest of lambdaRbacManifests(access)) await objects.create(manifest as KubernetesObject);
  }
}
