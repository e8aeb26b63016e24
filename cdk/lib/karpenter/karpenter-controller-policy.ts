import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';

export interface ControllerPolicyProps {
  readonly clusterName: string;
  readonly interruptionQueueArn: string;
  readonly nodeRoleArn: string;
}

/**
 * The Karpenter controller's permissions, statement for statement those of
 * Karpenter's reference CloudFormation template (website getting-started
 * `cloudformation.yaml`, KarpenterControllerPolicy): what it creates must be
 * tagged `kubernetes.io/cluster/<cluster>: owned` and `karpenter.sh/nodepool`,
 * what it tags, deletes or changes must already carry those tags, reads are
 * limited to the stack's region, and it may pass only the node role.
 */
export function karpenterControllerStatements(props: ControllerPolicyProps): iam.PolicyStatement[] {
  const { clusterName } = props;
  const ec2 = (resource: string): string => `arn:${Aws.PARTITION}:ec2:${Aws.REGION}:*:${resource}`;
  const clusterTag = `kubernetes.io/cluster/${clusterName}`;
  const launched = [ec2('fleet/*'), ec2('instance/*'), ec2('volume/*'), ec2('network-interface/*'), ec2('launch-template/*')];
  const requestTagged = { StringEquals: { [`aws:RequestTag/${clusterTag}`]: 'owned' }, StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' } };
  const resourceTagged = { StringEquals: { [`aws:ResourceTag/${clusterTag}`]: 'owned' }, StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' } };
  const regionTags = (prefix: string): Record<string, string> => ({ [`${prefix}/${clusterTag}`]: 'owned', [`${prefix}/topology.kubernetes.io/region`]: Aws.REGION });
  return [
    new iam.PolicyStatement({
      sid: 'AllowScopedEC2InstanceActions',
      actions: ['ec2:RunInstances', 'ec2:CreateFleet'],
      resources: [
        `arn:${Aws.PARTITION}:ec2:${Aws.REGION}::image/*`,
        `arn:${Aws.PARTITION}:ec2:${Aws.REGION}::snapshot/*`,
        ec2('spot-instances-request/*'),
        ec2('security-group/*'),
        ec2('subnet/*'),
        ec2('launch-template/*'),
      ],
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedEC2InstanceActionsWithTags',
      actions: ['ec2:RunInstances', 'ec2:CreateFleet', 'ec2:CreateLaunchTemplate'],
      resources: launched,
      conditions: requestTagged,
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedResourceCreationTagging',
      actions: ['ec2:CreateTags'],
      resources: launched,
      conditions: {
        StringEquals: { [`aws:RequestTag/${clusterTag}`]: 'owned', 'ec2:CreateAction': ['RunInstances', 'CreateFleet', 'CreateLaunchTemplate'] },
        StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedResourceTagging',
      actions: ['ec2:CreateTags'],
      resources: [ec2('instance/*')],
      conditions: { ...resourceTagged, 'ForAllValues:StringEquals': { 'aws:TagKeys': ['karpenter.sh/nodeclaim', 'Name'] } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedDeletion',
      actions: ['ec2:TerminateInstances', 'ec2:DeleteLaunchTemplate'],
      resources: [ec2('instance/*'), ec2('launch-template/*')],
      conditions: resourceTagged,
    }),
    new iam.PolicyStatement({
      sid: 'AllowRegionalReadActions',
      actions: [
        'ec2:DescribeAvailabilityZones',
        'ec2:DescribeImages',
        'ec2:DescribeInstances',
        'ec2:DescribeInstanceTypeOfferings',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeLaunchTemplates',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeSpotPriceHistory',
        'ec2:DescribeSubnets',
      ],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': Aws.REGION } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowSSMReadActions',
      actions: ['ssm:GetParameter'],
      resources: [`arn:${Aws.PARTITION}:ssm:${Aws.REGION}::parameter/aws/service/*`],
    }),
    new iam.PolicyStatement({ sid: 'AllowPricingReadActions', actions: ['pricing:GetProducts'], resources: ['*'] }),
    new iam.PolicyStatement({
      sid: 'AllowInterruptionQueueActions',
      actions: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage'],
      resources: [props.interruptionQueueArn],
    }),
    new iam.PolicyStatement({
      sid: 'AllowPassingInstanceRole',
      actions: ['iam:PassRole'],
      resources: [props.nodeRoleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileCreationActions',
      actions: ['iam:CreateInstanceProfile'],
      resources: ['*'],
      conditions: { StringEquals: regionTags('aws:RequestTag'), StringLike: { 'aws:RequestTag/karpenter.sh/nodeclass': '*' } },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileTagActions',
      actions: ['iam:TagInstanceProfile'],
      resources: ['*'],
      conditions: {
        StringEquals: { ...regionTags('aws:ResourceTag'), ...regionTags('aws:RequestTag') },
        StringLike: { 'aws:ResourceTag/karpenter.sh/nodeclass': '*', 'aws:RequestTag/karpenter.sh/nodeclass': '*' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'AllowScopedInstanceProfileActions',
      actions: ['iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile'],
      resources: ['*'],
      conditions: { StringEquals: regionTags('aws:ResourceTag'), StringLike: { 'aws:ResourceTag/karpenter.sh/nodeclass': '*' } },
    }),
    new iam.PolicyStatement({ sid: 'AllowInstanceProfileReadActions', actions: ['iam:GetInstanceProfile'], resources: ['*'] }),
    new iam.PolicyStatement({
      sid: 'AllowAPIServerEndpointDiscovery',
      actions: ['eks:DescribeCluster'],
      resources: [`arn:${Aws.PARTITION}:eks:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${clusterName}`],
    }),
  ];
}
