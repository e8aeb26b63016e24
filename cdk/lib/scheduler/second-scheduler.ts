import { Construct, type IDependable } from 'constructs';
import type * as eks from 'aws-cdk-lib/aws-eks-v2';
import type { SchedulerConfig } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { LAMBDA_KUBERNETES_ACCESS } from '../access/lambda-rbac-rules';
import { schedulerMetricsReaderManifests } from '../access/scheduler-metrics-rbac';
import { SECURE_PORT, secondSchedulerManifests } from './second-scheduler-manifests';

export interface SecondSchedulerProps {
  readonly target: ClusterTarget;
  readonly config: SchedulerConfig;
  readonly extenderUrlPrefix: string;
  /** The ALB's DNS name: a new one rolls the pods (second-scheduler-manifests.ts). */
  readonly extenderEndpoint: string;
  /** HTTPS with your own certificate: the CAs that issued it (default: the image's system roots). */
  readonly extenderCaBundle?: string;
  /** Mutual TLS: the Secret with the scheduler's client certificate, and what must exist before the pods read it. */
  readonly extenderTls?: { readonly secretName: string; readonly issued: IDependable };
}

/**
 * The `gpu-scheduler` kube-scheduler Deployment and everything it needs,
 * applied with kubectl at deploy time, and the reconciler's right to read its
 * /metrics (in the scheduler's namespace, which only this knows).
 */
export class SecondScheduler extends Construct {
  readonly manifest: eks.KubernetesManifest;

  constructor(scope: Construct, id: string, props: SecondSchedulerProps) {
    super(scope, id);
    this.manifest = props.target.cluster.addManifest(
      'GpuSecondScheduler',
      ...secondSchedulerManifests({
        scheduler: props.config,
        extenderUrlPrefix: props.extenderUrlPrefix,
        extenderEndpoint: props.extenderEndpoint,
        ...(props.extenderCaBundle === undefined ? {} : { extenderCaBundle: props.extenderCaBundle }),
        nodeSelector: props.target.systemNodeSelector,
        ...(props.extenderTls ? { extenderTlsSecret: props.extenderTls.secretName } : {}),
      }),
      ...schedulerMetricsReaderManifests({
        namespace: props.config.namespace,
        schedulerName: props.config.name,
        port: SECURE_PORT,
        group: LAMBDA_KUBERNETES_ACCESS.reconciler.group,
      }),
    );
    for (const ready of props.target.computeReady) this.manifest.node.addDependency(ready);
    if (props.extenderTls) this.manifest.node.addDependency(props.extenderTls.issued);
  }
}
