import { CustomResource, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { CERTIFICATE_OWNER_TAG_KEY, CERTIFICATE_PURPOSE_TAG } from '../../../lambdas/certificates/certificates-handler';
import { CLIENT_CA_BUNDLE_KEY } from '../../../lambdas/certificates/rotate-certificates';
import { CERTIFICATES_GROUP, extenderTlsManifests } from '../access/extender-tls-manifests';
import { acknowledgeProviderFramework } from '../common/provider-framework';
import type { ClusterTarget } from '../common/cluster-target';
import { failureQueue } from './failure-queue';
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

/** How often the rotation Lambda checks whether a certificate is due, or resumes a rotation a failed run left (lambdas/certificates/). */
export const ROTATION_CHECK_HOURS = 24;
/** Retries of a failed scheduled run (Lambda's asynchronous invocation, and EventBridge's delivery), before it goes to the failure queue. */
export const ROTATION_RETRIES = 2;

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
  /** The listener's certificate (a new one when the ALB was replaced). */
  readonly certificateArn: string;
  readonly function: nodejs.NodejsFunction;
  /** Scheduled runs that failed after their retries (and events EventBridge could not deliver). */
  readonly failedRuns: sqs.Queue;
  private readonly role: iam.Role;

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
    // Only the objects it owns: read the bundle (also an older version, the one the trust store serves) and its record, write new ones.
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject', 's3:GetObjectVersion', 's3:PutObject'], resources: [this.bucket.arnForObjects('extender-mtls/*')] }));
    const stack = Stack.of(this);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [target.clusterArn] }));
    // ACM: only certificates this stack imported, known by their tags. A new
    // import must carry exactly the two tags (it needs AddTagsToCertificate
    // for them); a re-import, a read and a delete, a certificate that has them.
    const certificates = `arn:${stack.partition}:acm:${stack.region}:${stack.account}:certificate/*`;
    const ownerTags = { [CERTIFICATE_PURPOSE_TAG.key]: CERTIFICATE_PURPOSE_TAG.value, [CERTIFICATE_OWNER_TAG_KEY]: stack.stackName };
    const tagCondition = (key: 'aws:RequestTag' | 'aws:ResourceTag') => Object.fromEntries(Object.entries(ownerTags).map(([tag, value]) => [`${key}/${tag}`, value]));
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ImportNewTaggedCertificate',
        actions: ['acm:ImportCertificate', 'acm:AddTagsToCertificate'],
        resources: [certificates],
        conditions: { StringEquals: tagCondition('aws:RequestTag'), 'ForAllValues:StringEquals': { 'aws:TagKeys': Object.keys(ownerTags) } },
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ManageOwnCertificates',
        actions: ['acm:ImportCertificate', 'acm:GetCertificate', 'acm:DeleteCertificate'],
        resources: [certificates],
        conditions: { StringEquals: tagCondition('aws:ResourceTag') },
      }),
    );
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:<AWS::Region>:<AWS::AccountId>:certificate/*]',
        reason: 'A certificate\'s ARN does not exist before ImportCertificate makes it (and a replaced ALB gets a new one); every statement on it requires this stack\'s purpose and stack tags, on the request for a new import, on the certificate for everything else.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/extender-mtls/*]`,
        reason: 'The bundle and the rotation record under extender-mtls/ in this stack\'s own bucket.',
      },
    );
    this.role = role;

    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: target.vpc,
      description: 'gpu-scheduling certificate rotation Lambda: HTTPS to the EKS API endpoint and AWS APIs only',
      allowAllOutbound: false,
    });
    securityGroup.connections.allowTo(target.clusterSecurityGroup, ec2.Port.tcp(443), 'certificate rotation Lambda to the EKS API endpoint');
    // S3, ACM, ELB and STS: public AWS endpoints (through the NAT gateway or the configured endpoints).
    securityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'AWS service APIs over HTTPS');

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      ...LAMBDA_BUILD,
      entry: DEPLOY_TIME_LAMBDA_ENTRIES.certificates,
      description: 'gpu-scheduling: issues and rotates the extender ALB\u2019s mutual-TLS certificates (keys made in-process)',
      memorySize: 256,
      // A run waits for the trust store to be active (at most 2 min) and for the scheduler's rollout (at most 5 min).
      timeout: Duration.minutes(10),
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
        // The value of the stack tag on every certificate it imports, which its IAM policy requires.
        CERTIFICATE_OWNER: stack.stackName,
        NODE_OPTIONS: '--enable-source-maps',
      },
    });
    Validations.of(this.function).acknowledge(RUNTIME_ACKNOWLEDGMENT);
    // Scheduled runs are asynchronous invocations: one that fails after its retries lands here (and raises an alarm).
    this.failedRuns = failureQueue(this, 'FailedRuns', 'This queue is itself the failure destination of the rotation\'s scheduled runs and of their EventBridge target.');
    this.function.configureAsyncInvoke({ retryAttempts: ROTATION_RETRIES, onFailure: new destinations.SqsDestination(this.failedRuns) });

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
      onEventHandler: this.function,
      logGroup: new logs.LogGroup(this, 'ProviderLogGroup', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY }),
    });
    acknowledgeProviderFramework(provider);
    this.resource = new CustomResource(this, 'Generation', {
      serviceToken: provider.serviceToken,
      resourceType: 'Custom::ExtenderMutualTls',
      // A new ALB name (the ALB replaced): the new listener gets its own certificate naming it (lambdas/certificates/rotate-certificates.ts, serveNewEndpoint).
      properties: { ServerDnsName: props.serverDnsName },
    });
    this.resource.node.addDependency(accessEntry, manifest, this.bucket);
    this.certificateArn = this.resource.getAttString('CertificateArn');
  }

  /**
   * Checks daily (from when the trust store exists) whether to rotate, or
   * resumes a rotation a failed run left; the rule names the trust store so
   * the run can point it at the new bundle, and only that trust store may be modified.
   */
  scheduleRotation(trustStoreArn: string): void {
    // Its own policy, attached after the trust store exists: the trust store needs the bundle the first run writes.
    const policy = new iam.Policy(this, 'TrustStorePolicy', {
      roles: [this.role],
      statements: [
        new iam.PolicyStatement({ actions: ['elasticloadbalancing:ModifyTrustStore'], resources: [trustStoreArn] }),
        // Waits for the trust store to be active again; ELB's Describe* actions support no resource-level permissions.
        new iam.PolicyStatement({ actions: ['elasticloadbalancing:DescribeTrustStores'], resources: ['*'] }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'elasticloadbalancing:DescribeTrustStores supports no resource-level permissions; read-only, to wait until the trust store is active after ModifyTrustStore.',
    });
    new events.Rule(this, 'RotationSchedule', {
      description: 'gpu-scheduling: rotates the extender mutual-TLS certificates when due, or resumes an interrupted rotation',
      schedule: events.Schedule.rate(Duration.hours(ROTATION_CHECK_HOURS)),
      targets: [
        new eventTargets.LambdaFunction(this.function, {
          event: events.RuleTargetInput.fromObject({ rotate: true, trustStoreArn }),
          retryAttempts: ROTATION_RETRIES,
          deadLetterQueue: this.failedRuns,
        }),
      ],
    });
  }
}
