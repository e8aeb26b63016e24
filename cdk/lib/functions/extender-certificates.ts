import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CLIENT_CA_BUNDLE_KEY } from '../../../lambdas/certificates/rotate-certificates';
import { CERTIFICATES_GROUP, extenderTlsManifests } from '../access/extender-tls-manifests';
import { acknowledgeProviderFramework } from '../common/provider-framework';
import type { ClusterTarget } from '../common/cluster-target';
import { LAMBDA_BUILD, RUNTIME_ACKNOWLEDGMENT } from './lambda-build';
import { DEPLOY_TIME_LAMBDA_ENTRIES } from './lambda-entries';

export interface ExtenderCertificatesProps {
  readonly target: ClusterTarget;
  /** The name the scheduler connects to: the internal ALB's DNS name. */
  readonly serverDnsName: string;
  readonly schedulerNamespace: string;
  readonly schedulerName: string;
  readonly secretName: string;
  readonly logRetention: logs.RetentionDays;
}

/** How often the rotation Lambda checks whether the client certificate is due (lambdas/certificates/rotation.ts). */
export const ROTATION_CHECK_HOURS = 24;

/**
 * The extender's mutual-TLS certificates, issued and rotated by a Lambda
 * (lambdas/certificates/) that makes every key in-process: the client CA
 * bundle goes to S3 for the ALB trust store, the server certificate is
 * imported into ACM, the client certificate and key go to the scheduler's
 * Secret through the Kubernetes API. No key is in the template, a parameter,
 * a custom-resource answer or a log, and no CA key is kept anywhere.
 */
export class ExtenderCertificates extends Construct {
  readonly bucket: s3.Bucket;
  readonly bundleKey = CLIENT_CA_BUNDLE_KEY;
  /** The first generation exists (CertificateArn attribute). */
  readonly resource: CustomResource;
  readonly certificateArn: string;
  private readonly fn: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: ExtenderCertificatesProps) {
    super(scope, id);
    const { target } = props;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      // The trust store reads a given version of the bundle; old versions are CA certificates, not secrets.
      versioned: true,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'Holds only public CA certificates and the server certificate ARN for the ALB trust store; the writer is one Lambda role whose calls CloudTrail records.',
    });

    const logGroup = new logs.LogGroup(this, 'LogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'gpu-scheduling extender mutual-TLS certificate rotation',
      managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaVPCAccessExecutionRole')],
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason: 'The AWS-managed policy for a VPC Lambda: ENI create/describe/delete (no resource-level permissions) and writing its logs.',
    });
    // Only the two objects it owns: read the previous bundle and state, write the new ones.
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: [this.bucket.arnForObjects('extender-mtls/*')] }));
    const stack = Stack.of(this);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [target.clusterArn] }));
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['acm:ImportCertificate', 'acm:DeleteCertificate', 'acm:AddTagsToCertificate'],
        resources: [`arn:${stack.partition}:acm:${stack.region}:${stack.account}:certificate/*`],
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['elasticloadbalancing:ModifyTrustStore'],
        resources: [`arn:${stack.partition}:elasticloadbalancing:${stack.region}:${stack.account}:truststore/*`],
      }),
    );
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]',
        reason: 'The server certificate\'s ARN does not exist before this function\'s first ImportCertificate; limited to the account and region.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:elasticloadbalancing:<AWS::Region>:<AWS::AccountId>:truststore/*]',
        reason: 'The trust store is created after this function (it needs the bundle the function writes), so its ARN cannot be named here without a cycle; limited to the account and region.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/extender-mtls/*]`,
        reason: 'The bundle and state objects under extender-mtls/ in this stack\'s own bucket.',
      },
    );

    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: target.vpc,
      description: 'gpu-scheduling certificate rotation Lambda: HTTPS to the EKS API endpoint and AWS APIs only',
      allowAllOutbound: false,
    });
    securityGroup.connections.allowTo(target.clusterSecurityGroup, ec2.Port.tcp(443), 'certificate rotation Lambda to the EKS API endpoint');
    // S3, ACM, ELB and STS: public AWS endpoints (through the NAT gateway or the configured endpoints).
    securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'AWS service APIs over HTTPS');

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      ...LAMBDA_BUILD,
      entry: DEPLOY_TIME_LAMBDA_ENTRIES.certificates,
      description: 'gpu-scheduling: issues and rotates the extender ALB\u2019s mutual-TLS certificates (keys made in-process)',
      memorySize: 256,
      // The rotation waits for the scheduler's rollout (at most 5 min) before replacing the server certificate.
      timeout: Duration.minutes(8),
      role,
      logGroup,
      vpc: target.vpc,
      vpcSubnets: target.privateSubnets,
      securityGroups: [securityGroup],
      environment: {
        CLUSTER_NAME: target.clusterName,
        CERTIFICATE_BUCKET: this.bucket.bucketName,
        SERVER_DNS_NAME: props.serverDnsName,
        SCHEDULER_NAMESPACE: props.schedulerNamespace,
        SCHEDULER_NAME: props.schedulerName,
        SCHEDULER_TLS_SECRET: props.secretName,
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    Validations.of(this.fn).acknowledge(RUNTIME_ACKNOWLEDGMENT);

    const accessEntry = new eks.CfnAccessEntry(this, 'AccessEntry', {
      clusterName: target.clusterName,
      principalArn: role.roleArn,
      type: 'STANDARD',
      kubernetesGroups: [CERTIFICATES_GROUP],
    });
    accessEntry.node.addDependency(...target.clusterCreated);
    const manifest = target.cluster.addManifest(
      'ExtenderTls',
      ...extenderTlsManifests({ namespace: props.schedulerNamespace, schedulerName: props.schedulerName, secretName: props.secretName }),
    );

    const provider = new cr.Provider(this, 'Provider', {
      onEventHandler: this.fn,
      logGroup: new logs.LogGroup(this, 'ProviderLogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
    });
    acknowledgeProviderFramework(provider);
    this.resource = new CustomResource(this, 'Generation', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::ExtenderMutualTls',
      // A new ALB name (the ALB replaced) reissues at once: the server certificate must name it.
      properties: { ServerDnsName: props.serverDnsName },
    });
    this.resource.node.addDependency(accessEntry, manifest, this.bucket);
    this.certificateArn = this.resource.getAttString('CertificateArn');
  }

  /** Checks daily (from when the trust store exists) whether to rotate; the rule names the trust store so the run can point it at the new bundle. */
  scheduleRotation(trustStoreArn: string): void {
    new events.Rule(this, 'RotationSchedule', {
      description: 'gpu-scheduling: rotates the extender mutual-TLS certificates when due',
      schedule: events.Schedule.rate(Duration.hours(ROTATION_CHECK_HOURS)),
      targets: [new eventTargets.LambdaFunction(this.fn, { event: events.RuleTargetInput.fromObject({ rotate: true, trustStoreArn }), retryAttempts: 2 })],
    });
  }
}
