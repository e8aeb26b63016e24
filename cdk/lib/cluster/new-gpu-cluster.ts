import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { IDependable } from 'constructs';
import { NODE_TAINT } from '../../../lambdas/scheduling/keys';
import type { KubernetesMinorVersion, NewClusterConfig, NodeGroupConfig, NodeTaint } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { acknowledgeClusterRoles, acknowledgeKubectlProvider } from './eks-acknowledgments';
import { GpuInstanceTypeCheck } from './gpu-instance-type-check';
import { kubectlLayer } from './kubectl-layer';

export interface NewGpuClusterProps {
  readonly clusterName: string;
  readonly kubernetesVersion: KubernetesMinorVersion;
  readonly config: NewClusterConfig;
  readonly logRetention: logs.RetentionDays;
}

/** Label on every node of the node groups this stack creates: the group's name. */
export const NODE_GROUP_LABEL = 'gpu-scheduling/node-group';
/** Label on the nodes of the GPU node groups this stack creates; the device plugin selects on it. */
export const ACCELERATOR_LABEL = 'gpu-scheduling/accelerator';

/** Labels the stack puts on every GPU node it provides, from a node group or a Karpenter NodePool. */
export const GPU_NODE_LABELS: Readonly<Record<string, string>> = { [ACCELERATOR_LABEL]: 'nvidia' };

/** The labeler lifts this taint once a node's labels are right (lambdas/labeler/startup-taint.ts). */
export const GPU_NODE_STARTUP_TAINT: NodeTaint = { key: NODE_TAINT.gpuLabelsPending, value: 'true', effect: 'NO_SCHEDULE' };

/** A new VPC and EKS cluster with a small system node group and the configured GPU node groups. */
export class NewGpuCluster extends Construct implements ClusterTarget {
  readonly cluster: eks.Cluster;
  readonly clusterName: string;
  readonly clusterArn: string;
  readonly vpc: ec2.IVpc;
  readonly privateSubnets: ec2.SubnetSelection = { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS };
  readonly clusterSecurityGroup: ec2.ISecurityGroup;
  readonly computeReady: eks.Nodegroup[] = [];
  readonly clusterCreated: IDependable[] = [];
  readonly awsApiEndpoints: ec2.ISecurityGroup | undefined;
  readonly installPodIdentityAgent = true;
  readonly gpuNodeGroups: eks.Nodegroup[] = [];
  readonly systemNodeSelector: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: NewGpuClusterProps) {
    super(scope, id);
    const { config } = props;

    const vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(config.vpcCidr),
      // An environment-agnostic stack knows only two zones of its region
      // (Fn::GetAZs); more need their names.
      ...(config.availabilityZones.length > 0 ? { availabilityZones: [...config.availabilityZones] } : { maxAzs: 2 }),
      natGateways: config.natGateways,
      subnetConfiguration: [
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 },
        { name: 'private', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 19 },
      ],
    });
    vpc.addFlowLog('FlowLog', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'FlowLogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
      ),
      trafficType: ec2.FlowLogTrafficType.REJECT,
    });
    this.vpc = vpc;
    this.awsApiEndpoints = config.awsApiAccess === 'vpc-endpoints' ? this.addAwsApiEndpoints(vpc, config.vpcCidr) : undefined;

    // EKS writes control-plane logs here; creating it first gives it a retention.
    const controlPlaneLogs = new logs.LogGroup(this, 'ControlPlaneLogGroup', {
      logGroupName: `/aws/eks/${props.clusterName}/cluster`,
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const endpointAccess =
      config.endpointAccess === 'private'
        ? eks.EndpointAccess.PRIVATE
        : eks.EndpointAccess.PUBLIC_AND_PRIVATE.onlyFrom(...config.publicAccessCidrs);

    this.cluster = new eks.Cluster(this, 'Cluster', {
      clusterName: props.clusterName,
      version: eks.KubernetesVersion.of(props.kubernetesVersion),
      vpc,
      vpcSubnets: [this.privateSubnets],
      endpointAccess,
      // Node groups below, not Auto Mode: GPU node groups need the NVIDIA AMI and taints.
      defaultCapacityType: eks.DefaultCapacityType.NODEGROUP,
      defaultCapacity: 0,
      clusterLogging: [
        eks.ClusterLoggingTypes.API,
        eks.ClusterLoggingTypes.AUDIT,
        eks.ClusterLoggingTypes.AUTHENTICATOR,
        eks.ClusterLoggingTypes.CONTROLLER_MANAGER,
        eks.ClusterLoggingTypes.SCHEDULER,
      ],
      kubectlProviderOptions: { kubectlLayer: kubectlLayer(this) },
    });
    this.cluster.node.addDependency(controlPlaneLogs);
    const clusterResource = this.cluster.node.defaultChild;
    if (clusterResource) this.clusterCreated.push(clusterResource);
    this.clusterName = props.clusterName;
    this.clusterArn = this.cluster.clusterArn;
    this.clusterSecurityGroup = this.cluster.clusterSecurityGroup;

    const system = this.addNodeGroup('SystemNodeGroup', config.systemNodeGroup, {});
    this.systemNodeSelector = { [NODE_GROUP_LABEL]: config.systemNodeGroup.name };
    this.computeReady.push(system);
    const instanceTypeCheck = config.gpuNodeGroups.length > 0 ? new GpuInstanceTypeCheck(this, 'GpuInstanceTypes', { logRetention: props.logRetention }) : undefined;
    for (const [index, configured] of config.gpuNodeGroups.entries()) {
      const addTaint = config.gpuNodeStartupTaint && !configured.taints.some((taint) => taint.key === GPU_NODE_STARTUP_TAINT.key);
      const group = addTaint ? { ...configured, taints: [...configured.taints, GPU_NODE_STARTUP_TAINT] } : configured;
      const amiType = instanceTypeCheck?.amiTypeFor(`Check-${group.name}`, `cluster.gpuNodeGroups[${index}].instanceTypes`, group.instanceTypes);
      const nodegroup = this.addNodeGroup(`GpuNodeGroup-${group.name}`, group, GPU_NODE_LABELS, amiType);
      this.gpuNodeGroups.push(nodegroup);
    }
    // A type without NVIDIA GPUs then fails the deployment within a minute,
    // before the control plane (ten minutes or more) is even started.
    for (const check of instanceTypeCheck?.all ?? []) clusterResource?.node.addDependency(check);

    // The people who run the cluster; CloudFormation's role, which creates it, is not one of them.
    for (const [index, principal] of config.adminPrincipalArns.entries()) {
      this.cluster.grantClusterAdmin(`AdminAccess${index}`, principal);
    }

    acknowledgeClusterRoles(this.cluster);
    acknowledgeKubectlProvider(this.cluster.node.findChild('KubectlProvider'));
    if (config.endpointAccess === 'public-and-private') {
      Validations.of(this.cluster).acknowledge({
        id: 'AwsSolutions-EKS1',
        reason: 'The operator set cluster.endpointAccess to public-and-private and listed the allowed CIDRs in cluster.publicAccessCidrs; the default is private.',
      });
    }
  }

  /**
   * Interface endpoints for the AWS APIs the Lambdas call. Private DNS sends
   * every client in the VPC there (the VPC CNI on the nodes calls EC2 too),
   * so the endpoints admit HTTPS from the whole VPC range.
   */
  private addAwsApiEndpoints(vpc: ec2.Vpc, vpcCidr: string): ec2.SecurityGroup {
    const securityGroup = new ec2.SecurityGroup(this, 'AwsApiEndpointSecurityGroup', {
      vpc,
      description: 'gpu-scheduling interface endpoints (EKS, EC2, CloudWatch): HTTPS from the VPC',
      allowAllOutbound: false,
    });
    // The literal range (not the VPC's token) so cdk-nag can see it is not open to the world.
    securityGroup.addIngressRule(ec2.Peer.ipv4(vpcCidr), ec2.Port.tcp(443), 'HTTPS from the VPC');
    const services = {
      EksApiEndpoint: ec2.InterfaceVpcEndpointAwsService.EKS,
      Ec2ApiEndpoint: ec2.InterfaceVpcEndpointAwsService.EC2,
      CloudWatchApiEndpoint: ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_MONITORING,
    };
    for (const [id, service] of Object.entries(services)) {
      vpc.addInterfaceEndpoint(id, { service, privateDnsEnabled: true, subnets: this.privateSubnets, securityGroups: [securityGroup], open: false });
    }
    return securityGroup;
  }

  /**
   * A managed node group; a GPU group when `gpuAmiType` (the deploy-time
   * check's answer) is given, the system group otherwise.
   */
  private addNodeGroup(id: string, group: NodeGroupConfig, stackLabels: Record<string, string>, gpuAmiType?: string): eks.Nodegroup {
    const nodegroup = this.cluster.addNodegroupCapacity(id, {
      // For a GPU group a placeholder, replaced below by the checked AMI type.
      amiType: gpuAmiType === undefined ? eks.NodegroupAmiType.AL2023_X86_64_STANDARD : eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
      // aws-cdk-lib's own list of GPU instance families (p2, p3, g2, g3, g4)
      // would reject the NVIDIA AMI for every newer family, so GPU instance
      // types are set on the L1 resource below; GpuInstanceTypeCheck asks EC2
      // about them at deploy time instead.
      instanceTypes: gpuAmiType === undefined ? group.instanceTypes.map((type) => new ec2.InstanceType(type)) : undefined,
      minSize: group.minSize,
      maxSize: group.maxSize,
      desiredSize: group.desiredSize,
      diskSize: group.diskSizeGiB,
      capacityType: group.capacityType === 'SPOT' ? eks.CapacityType.SPOT : eks.CapacityType.ON_DEMAND,
      subnets: this.privateSubnets,
      labels: { ...group.labels, ...stackLabels, [NODE_GROUP_LABEL]: group.name },
      taints: group.taints.map((taint) => ({ key: taint.key, value: taint.value, effect: eks.TaintEffect[taint.effect] })),
    });
    if (gpuAmiType !== undefined) {
      const resource = nodegroup.node.defaultChild as eks.CfnNodegroup;
      resource.instanceTypes = [...group.instanceTypes];
      resource.amiType = gpuAmiType;
    }
    return nodegroup;
  }
}
