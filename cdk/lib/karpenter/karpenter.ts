import { Tags, Validations } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { IDependable } from 'constructs';
import type { KarpenterConfig, NodeTaint } from '../../app-config/app-config';
import type { NewGpuCluster } from '../cluster/new-gpu-cluster';
import { InterruptionQueue } from './interruption-queue';
import { karpenterControllerStatements } from './karpenter-controller-policy';
import { DISCOVERY_TAG, gpuNodeClass, gpuNodePool, karpenterChartValues } from './karpenter-manifests';
import { KARPENTER_CHART_REPOSITORY, KARPENTER_NAMESPACE, KARPENTER_SERVICE_ACCOUNT, KARPENTER_VERSION } from './karpenter-release';

export interface KarpenterProps {
  readonly target: NewGpuCluster;
  readonly config: KarpenterConfig;
  /** Labels on every GPU node the pools launch. */
  readonly gpuNodeLabels: Readonly<Record<string, string>>;
  /** Taints each GPU node starts with (the labeler's, when enabled). */
  readonly startupTaints: readonly NodeTaint[];
  /** The eks-pod-identity-agent add-on: the controller's credentials come through it. */
  readonly podIdentityAgent: IDependable | undefined;
}

const NODE_ROLE_POLICIES = ['AmazonEKSWorkerNodePolicy', 'AmazonEKS_CNI_Policy', 'AmazonEC2ContainerRegistryReadOnly'];

/**
 * Karpenter on a cluster this stack creates: its controller (Helm chart,
 * pinned) on the system node group with a Pod Identity role, the role its GPU
 * nodes run with and their access entry, the interruption queue, the
 * EC2NodeClass and one NodePool per configured pool.
 */
export class Karpenter extends Construct {
  readonly chart: eks.HelmChart;
  readonly nodeRole: iam.Role;
  readonly controllerRole: iam.Role;
  readonly interruption: InterruptionQueue;
  readonly manifest: eks.KubernetesManifest;

  constructor(scope: Construct, id: string, props: KarpenterProps) {
    super(scope, id);
    const { target, config } = props;
    const cluster = target.cluster;

    // The EC2NodeClass finds its subnets by this tag.
    for (const subnet of target.vpc.selectSubnets(target.privateSubnets).subnets) Tags.of(subnet).add(DISCOVERY_TAG, target.clusterName);

    this.nodeRole = new iam.Role(this, 'NodeRole', {
      assumedBy: new iam.ServicePrincipal('ec2.amazonaws.com'),
      description: `Karpenter-launched GPU nodes of ${target.clusterName}`,
      managedPolicies: NODE_ROLE_POLICIES.map((name) => iam.ManagedPolicy.fromAwsManagedPolicyName(name)),
    });
    // Lets the nodes join: EKS maps the role to system:nodes, as for managed node groups.
    const nodeAccess = new eks.AccessEntry(this, 'NodeAccess', {
      cluster,
      principal: this.nodeRole.roleArn,
      accessEntryType: eks.AccessEntryType.EC2_LINUX,
      accessPolicies: [],
    });

    this.interruption = new InterruptionQueue(this, 'Interruption');

    this.controllerRole = new iam.Role(this, 'ControllerRole', {
      assumedBy: new iam.ServicePrincipal('pods.eks.amazonaws.com').withSessionTags(),
      description: `Karpenter controller of ${target.clusterName} (EKS Pod Identity)`,
    });
    const policy = new iam.Policy(this, 'ControllerPolicy', {
      statements: karpenterControllerStatements({
        clusterName: target.clusterName,
        interruptionQueueArn: this.interruption.queue.queueArn,
        nodeRoleArn: this.nodeRole.roleArn,
      }),
    });
    this.controllerRole.attachInlinePolicy(policy);
    const association = new eks.CfnPodIdentityAssociation(this, 'ControllerPodIdentity', {
      clusterName: target.clusterName,
      namespace: KARPENTER_NAMESPACE,
      serviceAccount: KARPENTER_SERVICE_ACCOUNT,
      roleArn: this.controllerRole.roleArn,
    });
    association.node.addDependency(...target.clusterCreated);

    this.chart = cluster.addHelmChart('KarpenterChart', {
      chart: 'karpenter',
      repository: KARPENTER_CHART_REPOSITORY,
      version: KARPENTER_VERSION,
      release: 'karpenter',
      namespace: KARPENTER_NAMESPACE,
      values: karpenterChartValues({
        clusterName: target.clusterName,
        interruptionQueueName: this.interruption.queue.queueName,
        systemNodeSelector: target.systemNodeSelector,
      }),
      // The NodePools below need the CRDs the chart installs, and a controller
      // that started without credentials would only crash-loop.
      wait: true,
    });
    this.chart.node.addDependency(association, policy, nodeAccess, ...target.computeReady);
    if (props.podIdentityAgent) this.chart.node.addDependency(props.podIdentityAgent);

    this.manifest = cluster.addManifest(
      'KarpenterNodePools',
      gpuNodeClass({ clusterName: target.clusterName, nodeRoleName: this.nodeRole.roleName, securityGroupId: target.clusterSecurityGroup.securityGroupId, config }),
      ...config.nodePools.map((pool) => gpuNodePool({ pool, stackLabels: props.gpuNodeLabels, startupTaints: props.startupTaints })),
    );
    this.manifest.node.addDependency(this.chart);

    this.acknowledgeFindings(policy);
  }

  private acknowledgeFindings(policy: iam.Policy): void {
    Validations.of(this.nodeRole).acknowledge(
      ...NODE_ROLE_POLICIES.map((name) => ({
        id: `AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${name}]`,
        reason: 'The AWS-managed policies EKS documents for worker nodes, as on the managed node groups; AWS maintains them as EKS evolves.',
      })),
    );
    // Karpenter's reference controller policy, statement for statement (karpenter-controller-policy.ts).
    const ec2 = (resource: string): string => `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ec2:<AWS::Region>:${resource}]`;
    const launchInputs =
      'RunInstances/CreateFleet read these to launch (AMIs, snapshots, the selected subnets and security groups, its launch templates); which ones is decided by the EC2NodeClass selectors, and the instances it creates must carry the cluster and nodepool tags (next statement).';
    const tagged =
      'Created, tagged or deleted only with the kubernetes.io/cluster/<cluster>=owned and karpenter.sh/nodepool tags in the request or on the resource (conditions on the statement): the ids do not exist before launch.';
    Validations.of(policy).acknowledge(
      ...[':image/*', ':snapshot/*', '*:spot-instances-request/*', '*:security-group/*', '*:subnet/*'].map((resource) => ({ id: ec2(resource), reason: launchInputs })),
      ...['*:fleet/*', '*:instance/*', '*:volume/*', '*:network-interface/*', '*:launch-template/*'].map((resource) => ({ id: ec2(resource), reason: tagged })),
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>::parameter/aws/service/*]',
        reason: "Read-only: the public AWS parameters (EKS AMI ids per Kubernetes version) Karpenter resolves the AMI alias through; no account parameter matches.",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'EC2 Describe* (limited to the stack region by aws:RequestedRegion), pricing:GetProducts and iam:GetInstanceProfile support no resource-level permissions; the instance-profile actions are limited by the cluster, region and karpenter.sh/nodeclass tags because Karpenter names the profiles itself.',
      },
    );
    Validations.of(this.interruption.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'Karpenter deletes each interruption message once handled and the messages expire after five minutes (the instance is gone by then); a dead-letter queue would only hold stale events.',
    });
  }
}
