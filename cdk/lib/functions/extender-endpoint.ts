import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { ExtenderFunctionConfig, SchedulerConfig } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { ExtenderCertificates } from './extender-certificates';
import type { PipelineFunction } from './pipeline-function';
import { ScopedLambdaTarget, targetGroupName } from './scoped-lambda-target';

export interface ExtenderEndpointProps {
  readonly target: ClusterTarget;
  readonly config: ExtenderFunctionConfig;
  readonly extender: PipelineFunction;
  /** Where the scheduler runs: its TLS Secret goes there. */
  readonly scheduler: Pick<SchedulerConfig, 'name' | 'namespace'>;
  readonly logRetention: logs.RetentionDays;
}

/**
 * The internal ALB the second kube-scheduler calls. By default (extender.mutualTls)
 * an HTTPS listener with mutual TLS in verify mode: only a client holding a
 * certificate from the trust store's CAs (the scheduler's, issued and rotated
 * by ExtenderCertificates) gets a request to the Lambda; anyone else is
 * refused in the TLS handshake and never invokes it. The opt-out is plain
 * HTTP, or HTTPS with extender.certificateArn plus extender.hostname (a DNS
 * name you point at the ALB); either lets anyone who reaches the ALB invoke
 * the Lambda (docs/deploy.md, "Who can call what").
 */
export class ExtenderEndpoint extends Construct {
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly securityGroup: ec2.SecurityGroup;
  /** What the scheduler's `urlPrefix` is set to. */
  readonly urlPrefix: string;
  readonly usesHttps: boolean;
  /** With mutual TLS: the certificates, and the Secret that holds the scheduler's. */
  readonly certificates: ExtenderCertificates | undefined;
  readonly tlsSecretName: string | undefined;

  constructor(scope: Construct, id: string, props: ExtenderEndpointProps) {
    super(scope, id);
    const { target, config } = props;

    this.securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: target.vpc,
      description: 'gpu-scheduling extender ALB: reachable only from the EKS cluster security group',
      // Lambda targets are invoked through the Lambda API, not over the network.
      allowAllOutbound: false,
    });
    this.securityGroup.addIngressRule(target.clusterSecurityGroup, ec2.Port.tcp(config.listenerPort), 'kube-scheduler pods on cluster nodes');

    this.loadBalancer = new elbv2.ApplicationLoadBalancer(this, 'LoadBalancer', {
      vpc: target.vpc,
      vpcSubnets: target.privateSubnets,
      internetFacing: false,
      securityGroup: this.securityGroup,
      dropInvalidHeaderFields: true,
    });
    Validations.of(this.loadBalancer).acknowledge({
      id: 'AwsSolutions-ELB2',
      reason: 'Internal ALB carrying only kube-scheduler extender calls; the extender Lambda logs every request with its verb and outcome and emits per-verb metrics, so ALB access logs (and their S3 bucket) would duplicate them.',
    });

    this.usesHttps = config.mutualTls || config.certificateArn !== undefined;
    this.tlsSecretName = config.mutualTls ? `${props.scheduler.name}-extender-tls` : undefined;
    this.certificates =
      this.tlsSecretName === undefined
        ? undefined
        : new ExtenderCertificates(this, 'Certificates', {
            target,
            serverDnsName: this.loadBalancer.loadBalancerDnsName,
            schedulerNamespace: props.scheduler.namespace,
            schedulerName: props.scheduler.name,
            secretName: this.tlsSecretName,
            logRetention: props.logRetention,
          });
    let trustStore: elbv2.TrustStore | undefined;
    if (this.certificates) {
      trustStore = new elbv2.TrustStore(this, 'TrustStore', { bucket: this.certificates.bucket, key: this.certificates.bundleKey });
      // The bundle is written by the first generation.
      trustStore.node.addDependency(this.certificates.resource);
      this.certificates.scheduleRotation(trustStore.trustStoreArn);
    }
    const listener = this.loadBalancer.addListener('Listener', {
      port: config.listenerPort,
      open: false,
      ...(this.certificates && trustStore
        ? {
            protocol: elbv2.ApplicationProtocol.HTTPS,
            certificates: [elbv2.ListenerCertificate.fromArn(this.certificates.certificateArn)],
            sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
            mutualAuthentication: { mutualAuthenticationMode: elbv2.MutualAuthenticationMode.VERIFY, trustStore },
          }
        : config.certificateArn !== undefined
        ? {
            protocol: elbv2.ApplicationProtocol.HTTPS,
            certificates: [elbv2.ListenerCertificate.fromArn(config.certificateArn)],
            sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
          }
        : { protocol: elbv2.ApplicationProtocol.HTTP }),
    });
    // With provisioned concurrency the ALB invokes a `live` alias of the
    // current version, kept warm (its INIT already listed the cluster:
    // lambdas/extender/init-warmup.ts); otherwise the function itself.
    const invoked =
      config.provisionedConcurrency > 0
        ? new lambda.Alias(this, 'LiveAlias', {
            aliasName: 'live',
            version: props.extender.function.currentVersion,
            provisionedConcurrentExecutions: config.provisionedConcurrency,
          })
        : props.extender.function;
    // Invoked only from this target group, behind this listener.
    const groupName = targetGroupName(this);
    listener.addTargets('Extender', { targetGroupName: groupName, targets: [new ScopedLambdaTarget(invoked, groupName)] });

    // With mutual TLS the server certificate names the ALB's own DNS name.
    const host = config.hostname ?? this.loadBalancer.loadBalancerDnsName;
    this.urlPrefix = `${this.usesHttps ? 'https' : 'http'}://${host}:${config.listenerPort}`;
  }
}
