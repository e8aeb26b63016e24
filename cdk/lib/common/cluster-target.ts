import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import type * as eks from 'aws-cdk-lib/aws-eks-v2';
import type { IDependable } from 'constructs';

/**
 * What the rest of the stack needs from the cluster, whether this stack
 * created it or attached to an existing one.
 */
export interface ClusterTarget {
  /** Has a kubectl provider, so manifests and Helm charts can be applied. */
  readonly cluster: eks.ICluster;
  readonly clusterName: string;
  readonly clusterArn: string;
  readonly vpc: ec2.IVpc;
  readonly privateSubnets: ec2.SubnetSelection;
  /**
   * The EKS-created cluster security group: it is on the control-plane ENIs
   * (so allowing 443 into it reaches the API endpoint) and on managed nodes
   * (so it identifies kube-scheduler pods calling the ALB).
   */
  readonly clusterSecurityGroup: ec2.ISecurityGroup;
  /**
   * Security group of the VPC interface endpoints for the AWS APIs the
   * Lambdas call, when the VPC has them: the Lambdas' HTTPS egress then goes
   * there instead of to any address.
   */
  readonly awsApiEndpoints: ec2.ISecurityGroup | undefined;
  /** The cluster resource itself, for resources that name the cluster by a literal (access entries, add-ons); empty when attached. */
  readonly clusterCreated: readonly IDependable[];
  /** Add-ons that run pods wait for these (node groups), so they can become ACTIVE. */
  readonly computeReady: readonly IDependable[];
  /**
   * Node labels of the node group the stack's own controllers (the second
   * scheduler, Karpenter) run on; undefined on an attached cluster, whose nodes
   * the stack does not know.
   */
  readonly systemNodeSelector: Readonly<Record<string, string>> | undefined;
  /** Whether this stack must install the eks-pod-identity-agent add-on. */
  readonly installPodIdentityAgent: boolean;
}
