import * as eks from 'aws-cdk-lib/aws-eks-v2';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { ClusterTarget } from '../cluster/cluster-target';
import type { KubernetesObject } from '../scheduler/second-scheduler-manifests';

/** One Kubernetes RBAC rule. */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

export interface LambdaClusterAccessProps {
  readonly target: ClusterTarget;
  /** Kubernetes group the role is mapped to; also the ClusterRole's name. Must not start with `system:`. */
  readonly group: string;
  readonly role: iam.IRole;
  readonly rules: readonly PolicyRule[];
}

/** The ClusterRole and its binding to the group of one Lambda's access entry. */
export function lambdaRbacManifests(group: string, rules: readonly PolicyRule[]): KubernetesObject[] {
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: group, labels },
      rules: rules.map((rule) => ({ apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] })),
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: group, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: group },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
    },
  ];
}

/**
 * Lets one Lambda role into the cluster: an EKS access entry that maps the
 * role to a Kubernetes group and no access policy (so no EKS-managed
 * permissions such as cluster-admin), plus a narrow ClusterRole bound to
 * that group.
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
      kubernetesGroups: [props.group],
    });
    this.accessEntry.node.addDependency(...props.target.clusterCreated);
    this.manifest = props.target.cluster.addManifest(`${id}Rbac`, ...lambdaRbacManifests(props.group, props.rules));
  }
}
