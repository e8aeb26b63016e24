import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import { Construct } from 'constructs';
import type { ExistingClusterConfig, KubernetesMinorVersion } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { acknowledgeKubectlProvider } from './eks-acknowledgments';
import { kubectlLayer } from './kubectl-layer';

export interface AttachedClusterProps {
  readonly clusterName: string;
  readonly kubernetesVersion: KubernetesMinorVersion;
  readonly config: ExistingClusterConfig;
}

/**
 * An existing EKS cluster, attached by name. Everything comes from the config
 * (no lookups), so `cdk synth` needs no credentials.
 *
 * Applying manifests needs what the new-cluster path gets for free: a kubectl
 * provider Lambda that can reach the API endpoint (placed in the given private
 * subnets with the cluster security group, so a private-only endpoint works)
 * and an access entry that lets its role apply RBAC objects. The cluster's
 * authentication mode must include API (access entries).
 */
export class AttachedCluster extends Construct implements ClusterTarget {
  readonly cluster: eks.ICluster;
  readonly clusterName: string;
  readonly clusterArn: string;
  readonly vpc: ec2.IVpc;
  readonly privateSubnets: ec2.SubnetSelection;
  readonly clusterSecurityGroup: ec2.ISecurityGroup;
  readonly computeReady = [];
  readonly clusterCreated = [];
  readonly awsApiEndpoints = undefined;
  readonly installPodIdentityAgent: boolean;
  readonly systemNodeSelector = undefined;

  constructor(scope: Construct, id: string, props: AttachedClusterProps) {
    super(scope, id);
    const { config } = props;
    this.vpc = ec2.Vpc.fromVpcAttributes(this, 'Vpc', {
      vpcId: config.vpcId,
      availabilityZones: [...config.availabilityZones],
      privateSubnetIds: [...config.privateSubnetIds],
    });
    const subnets = config.privateSubnetIds.map((subnetId, index) =>
      ec2.Subnet.fromSubnetAttributes(this, `PrivateSubnet${index}`, { subnetId, availabilityZone: config.availabilityZones[index] }),
    );
    this.privateSubnets = { subnets };
    Validations.of(this).acknowledge({
      id: 'Annotation::@aws-cdk/aws-ec2:noSubnetRouteTableId',
      reason: 'The imported subnets only place the Lambdas and the kubectl provider; nothing in the stack reads their route tables (no gateway endpoints, no routes), so their ids are not asked for.',
    });

    // First import: just enough (ARN, VPC, security group) to build the kubectl provider.
    const reference = eks.Cluster.fromClusterAttributes(this, 'ClusterReference', {
      clusterName: props.clusterName,
      vpc: this.vpc,
      clusterSecurityGroupId: config.clusterSecurityGroupId,
    });
    const kubectlProvider = new eks.KubectlProvider(this, 'KubectlProvider', {
      cluster: reference,
      kubectlLayer: kubectlLayer(this),
      privateSubnets: subnets,
    });
    acknowledgeKubectlProvider(kubectlProvider);
    // The deploy-time kubectl provider creates ClusterRoles and bindings, which
    // Kubernetes only allows to a principal that already holds those
    // permissions; the new-cluster path grants it the same policy. The runtime
    // Lambdas never get this.
    const kubectlAccess = new eks.AccessEntry(this, 'KubectlProviderAccess', {
      cluster: reference,
      principal: kubectlProvider.role?.roleArn ?? '',
      accessPolicies: [eks.AccessPolicy.fromAccessPolicyName('AmazonEKSClusterAdminPolicy', { accessScopeType: eks.AccessScopeType.CLUSTER })],
    });
    // Second import: the one manifests are applied through.
    this.cluster = eks.Cluster.fromClusterAttributes(this, 'Cluster', {
      clusterName: props.clusterName,
      vpc: this.vpc,
      clusterSecurityGroupId: config.clusterSecurityGroupId,
      kubectlProvider,
    });
    this.kubectlAccess = kubectlAccess;
    this.clusterName = props.clusterName;
    this.clusterArn = reference.clusterArn;
    this.clusterSecurityGroup = ec2.SecurityGroup.fromSecurityGroupId(this, 'ClusterSecurityGroup', config.clusterSecurityGroupId);
    this.installPodIdentityAgent = config.installPodIdentityAgent;
  }

  /** Manifests must wait for this, or kubectl is refused until the entry exists. */
  readonly kubectlAccess: eks.AccessEntry;
}
