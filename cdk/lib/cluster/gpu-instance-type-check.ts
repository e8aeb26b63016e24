import { CustomResource, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeProviderFramework } from '../common/provider-framework';
import { LAMBDA_BUILD, RUNTIME_ACKNOWLEDGMENT } from '../functions/lambda-build';
import { DEPLOY_TIME_LAMBDA_ENTRIES } from '../functions/lambda-entries';

export interface GpuInstanceTypeCheckProps {
  readonly logRetention: logs.RetentionDays;
}

/** The custom resource's type in the template. */
export const GPU_INSTANCE_TYPES_RESOURCE_TYPE = 'Custom::GpuInstanceTypes';

/**
 * The deploy-time check of the GPU node groups' instance types: a custom
 * resource per group whose handler (lambdas/gpu-instance-types/) asks EC2's
 * DescribeInstanceTypes, in the region being deployed to, whether each type
 * has NVIDIA GPUs, and answers the NVIDIA AMI for their CPU architecture.
 * EC2 is the maintained source: a new family is accepted the day EC2 lists
 * it, with no release of this app (docs/configuration.md says why not at
 * synth). The Lambda runs outside the VPC (it only calls the public EC2 API)
 * and only while CloudFormation creates or updates a check.
 */
export class GpuInstanceTypeCheck extends Construct {
  private readonly provider: cr.Provider;
  private readonly checks: CustomResource[] = [];

  constructor(scope: Construct, id: string, props: GpuInstanceTypeCheckProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'gpu-scheduling deploy-time check of the GPU instance types',
    });
    logGroup.grantWrite(role);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['ec2:DescribeInstanceTypes'], resources: ['*'] }));
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ec2:DescribeInstanceTypes has no resource-level permissions; it only reads public instance-type facts.',
    });
    const handler = new nodejs.NodejsFunction(this, 'Function', {
      ...LAMBDA_BUILD,
      entry: DEPLOY_TIME_LAMBDA_ENTRIES.gpuInstanceTypes,
      description: 'gpu-scheduling: checks at deploy time that the GPU node groups\u2019 instance types have NVIDIA GPUs (DescribeInstanceTypes)',
      memorySize: 256,
      timeout: Duration.seconds(60),
      role,
      logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps' },
    });
    Validations.of(handler).acknowledge(RUNTIME_ACKNOWLEDGMENT);
    this.provider = new cr.Provider(this, 'Provider', {
      onEventHandler: handler,
      logGroup: new logs.LogGroup(this, 'ProviderLogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
    });
    acknowledgeProviderFramework(this.provider);
  }

  /**
   * The AMI type for these instance types, known at deploy time; the
   * deployment stops, naming `setting`, when one of them has no NVIDIA GPU,
   * is not offered in the region, or does not share the others' architecture.
   */
  amiTypeFor(id: string, setting: string, instanceTypes: readonly string[]): string {
    const check = new CustomResource(this, id, {
      serviceToken: this.provider.serviceToken,
      resourceType: GPU_INSTANCE_TYPES_RESOURCE_TYPE,
      properties: { Setting: setting, InstanceTypes: [...instanceTypes] },
    });
    this.checks.push(check);
    return check.getAttString('AmiType');
  }

  /** Every check made so far, for resources that should wait for them. */
  get all(): readonly CustomResource[] {
    return this.checks;
  }
}
