import * as eks from 'aws-cdk-lib/aws-eks-v2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ClusterTarget } from '../common/cluster-target';
import { lambdaRbacManifests } from './lambda-rbac-manifests';
import type { LambdaKubernetesAccess } from './lambda-rbac-rules';

export interface LambdaClusterAccessProps {
  readonly target: ClusterTarget;
  readonly role: iam.IRole;
  readonly access: LambdaKubernetesAccess;
  /** Namespaces its `namespacedRules` are limited to; none = cluster-wide. */
  readonly namespaces?: readonly string[];
}

/**
 * Lets one Lambda role into the cluster: an EKS access entry that maps the
 * role to a Kubernetes group and no access policy (so no EKS-managed
 * permissions such as cluster-admin), plus narrow RBAC bound to that group.
 */
export class LambdaClusterAccess extends Construct {
  readonly accessEntry: eks.CfnAccessEntry;
  readonly manifest: eks.KubernetesManifest;

  constructor(scope: Construct, id: string, props: LambdaClusterAccessProps) {
    super(scope, id);
    this.accessEntry = new eks.CfnAccessEntry(this, 'AccessEntry', {
      clusterName: props.target.clusterName,
      principalArn: props.role.roleArn,
      type: 'STANDARD',
      kubernetesGroups: [props.access.group],
    });
    this.accessEntry.node.addDependency(...props.target.clusterCreated);
    this.manifest = props.target.cluster.addManifest(`${id}Rbac`, ...lambdaRbacManifests(props.access, props.namespaces));
  }
}
