import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionConfig } from '../../app-config/app-config';
import type { FunctionEnvironment } from '../../app-config/function-environment';
import type { ClusterTarget } from '../common/cluster-target';
import { LAMBDA_BUILD, RUNTIME_ACKNOWLEDGMENT } from './lambda-build';
import { LAMBDA_ENTRIES } from './lambda-entries';
import type { PipelineFunctionName } from './lambda-entries';

export interface PipelineFunctionProps {
  readonly name: PipelineFunctionName;
  readonly description: string;
  readonly target: ClusterTarget;
  readonly config: FunctionConfig;
  /** Its whole environment, from the one writer of it (cdk/app-config/function-environment.ts). */
  readonly environment: FunctionEnvironment<PipelineFunctionName>;
  readonly logRetention: logs.RetentionDays;
  readonly reservedConcurrency?: number;
  /** Read-only actions that IAM cannot scope to a resource, each with the reason it is needed. */
  readonly unscopedActions?: readonly UnscopedActions[];
}

export interface UnscopedActions {
  readonly actions: readonly string[];
  /** Why the function needs them; goes into the cdk-nag acknowledgment. */
  readonly why: string;
}

/**
 * One of the pipeline's Lambdas, built as LAMBDA_BUILD says, in the cluster
 * VPC's private subnets so it can reach a private API endpoint, with its own
 * log group, role and security group.
 */
export class PipelineFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly securityGroup: ec2.SecurityGroup;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PipelineFunctionProps) {
    super(scope, id);
    const { target } = props;

    this.logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `gpu-scheduling ${props.name} Lambda`,
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole')],
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason: 'The AWS-managed policy for a VPC Lambda: ENI create/describe/delete (no resource-level permissions) and writing its logs.',
    });
    // Every pipeline Lambda reads the cluster's endpoint and CA to build its kubeconfig.
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [target.clusterArn] }));
    for (const unscoped of props.unscopedActions ?? []) {
      this.role.addToPolicy(new iam.PolicyStatement({ actions: [...unscoped.actions], resources: ['*'] }));
    }

    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: target.vpc,
      description: `gpu-scheduling ${props.name} Lambda: HTTPS to the EKS API endpoint and AWS APIs only`,
      allowAllOutbound: false,
    });
    // The API endpoint's ENIs carry the cluster security group: this adds the
    // matching ingress rule on it too.
    this.securityGroup.connections.allowTo(target.clusterSecurityGroup, ec2.Port.tcp(443), `${props.name} Lambda to the EKS API endpoint`);
    if (target.awsApiEndpoints) {
      this.securityGroup.connections.allowTo(target.awsApiEndpoints, ec2.Port.tcp(443), `${props.name} Lambda to the AWS API endpoints`);
    } else {
      // AWS APIs (EKS DescribeCluster, EC2, CloudWatch) through the NAT
      // gateway: their public addresses are not a fixed set a rule could name.
      this.securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'AWS service APIs over HTTPS');
    }

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...LAMBDA_BUILD,
      entry: LAMBDA_ENTRIES[props.name],
      description: props.description,
      memorySize: props.config.memorySizeMiB,
      timeout: Duration.seconds(props.config.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      vpc: target.vpc,
      vpcSubnets: target.privateSubnets,
      securityGroups: [this.securityGroup],
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: lambda.Tracing.ACTIVE,
      environment: { ...props.environment },
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: [
        'X-Ray PutTraceSegments/PutTelemetryRecords have no resource-level permissions.',
        ...(props.unscopedActions ?? []).map((unscoped) => `${unscoped.actions.join(', ')}: ${unscoped.why}`),
      ].join(' '),
    });
    Validations.of(this.function).acknowledge(RUNTIME_ACKNOWLEDGMENT);
  }
}
