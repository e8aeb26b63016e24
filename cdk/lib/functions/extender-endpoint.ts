import { Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as targets from 'aws-cdk-lib/aws-elasticloadbalancingv2-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ExtenderFunctionConfig } from '../../app-config/app-config';
import type { ClusterTarget } from '../cluster/cluster-target';
import type { PipelineFunction } from './pipeline-function';

export interface ExtenderEndpointProps {
  readonly target: ClusterTarget;
  readonly config: ExtenderFunctionConfig;
  readonly extender: PipelineFunction;
}

/**
 * The internal ALB the second kube-scheduler calls. Plain HTTP by default:
 * the ALB is internal, reachable only from the cluster security group, and
 * the payloads are pod and node names, not secrets; TLS needs a certificate
 * whose name the scheduler can verify, so it is opt-in (extender.certificateArn
 * plus extender.hostname, a DNS name you point at the ALB).
 */
export class ExtenderEndpoint extends Construct {
  readonly loadBalancer: elbv2.ApplicationLoadBalancer;
  readonly securityGroup: ec2.SecurityGroup;
  /** What the scheduler's `urlPrefix` is set to. */
  readonly urlPrefix: string;
  readonly usesHttps: boolean;

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

    this.usesHttps = config.certificateArn !== undefined;
    const listener = this.loadBalancer.addListener('Listener', {
      port: config.listenerPort,
      open: false,
      ...(config.certificateArn !== undefined
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
    listener.addTargets('Extender', { targets: [new targets.LambdaTarget(invoked)] });

    const host = config.hostname ?? this.loadBalancer.loadBalancerDnsName;
    this.urlPrefix = `${this.usesHttps ? 'https' : 'http'}://${host}:${config.listenerPort}`;
  }
}
