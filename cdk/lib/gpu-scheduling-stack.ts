import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { StackProps } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks-v2';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { AppConfig } from '../app-config/app-config';
import { functionEnvironment, type ClusterEndpoint } from '../app-config/function-environment';
import { LambdaClusterAccess } from './access/cluster-access';
import { LAMBDA_KUBERNETES_ACCESS } from './access/lambda-rbac-rules';
import { lambdaWriteLimitManifests } from './access/write-limit-policy';
import { gpuIntentManifests, gpuIntentOptionsOf } from './admission/gpu-intent-policies';
import { AttachedCluster } from './cluster/attached-cluster';
import { ClusterAddons } from './cluster/cluster-addons';
import type { ClusterTarget } from './common/cluster-target';
import { GPU_NODE_LABELS, GPU_NODE_STARTUP_TAINT, NewGpuCluster } from './cluster/new-gpu-cluster';
import { Karpenter } from './karpenter/karpenter';
import { Kueue } from './kueue/kueue';
import { EventDrivenInvocation } from './functions/event-driven-invocation';
import { ExtenderEndpoint } from './functions/extender-endpoint';
import { PipelineFunction } from './functions/pipeline-function';
import { giveEveryFunctionALogGroup } from './logging/function-log-groups';
import { PipelineAlarms } from './observability/pipeline-alarms';
import { monitoringManifests } from './monitoring/monitoring-manifests';
import { PipelineDashboard } from './observability/pipeline-dashboard';
import { SecondScheduler } from './scheduler/second-scheduler';

export interface GpuSchedulingStackProps extends StackProps {
  readonly config: AppConfig;
}

/** The whole pipeline in one environment-agnostic stack. */
export class GpuSchedulingStack extends Stack {
  readonly target: ClusterTarget;

  constructor(scope: Construct, id: string, props: GpuSchedulingStackProps) {
    super(scope, id, props);
    const { config } = props;
    const logRetention = config.logRetentionDays as logs.RetentionDays;

    const target: ClusterTarget =
      config.cluster.mode === 'new'
        ? new NewGpuCluster(this, 'Cluster', { clusterName: config.clusterName, kubernetesVersion: config.kubernetesVersion, config: config.cluster, logRetention })
        : new AttachedCluster(this, 'Cluster', { clusterName: config.clusterName, kubernetesVersion: config.kubernetesVersion, config: config.cluster });
    this.target = target;

    const withKarpenter = config.cluster.mode === 'new' && config.cluster.gpuCapacity === 'karpenter';
    const addons = new ClusterAddons(this, 'Addons', { target, config: config.addons, podIdentityNeeded: withKarpenter });
    if (target instanceof NewGpuCluster && config.cluster.mode === 'new' && withKarpenter) {
      new Karpenter(this, 'Karpenter', {
        target,
        config: config.cluster.karpenter,
        gpuNodeLabels: GPU_NODE_LABELS,
        startupTaints: config.cluster.gpuNodeStartupTaint ? [GPU_NODE_STARTUP_TAINT] : [],
        podIdentityAgent: addons.podIdentityAgent,
      });
    }

    if (config.addons.kueue.enabled) new Kueue(this, 'Kueue', { target, config });

    const extender = new PipelineFunction(this, 'Extender', {
      name: 'extender',
      description: 'kube-scheduler extender (filter, prioritize, preempt) behind the internal ALB',
      target,
      config: config.extender,
      environment: functionEnvironment(config, 'extender', createdClusterEndpoint(target)),
      logRetention,
      // 0 is our "no reservation"; to Lambda a reservation of 0 would throttle every call.
      ...(config.extender.reservedConcurrency > 0 ? { reservedConcurrency: config.extender.reservedConcurrency } : {}),
    });
    const labeler = new PipelineFunction(this, 'Labeler', {
      name: 'labeler',
      description: 'Labels GPU nodes with model, memory and count from EC2 instance-type metadata, and their capacity reservation',
      target,
      config: config.labeler,
      environment: functionEnvironment(config, 'labeler'),
      logRetention,
      unscopedActions: [
        {
          // EC2 Describe* actions support no resource-level permissions.
          actions: ['ec2:DescribeInstances', 'ec2:DescribeInstanceTypes', 'ec2:DescribeCapacityReservations'],
          why: 'EC2 Describe* actions support no resource-level permissions; read-only instance, instance-type and capacity-reservation metadata.',
        },
      ],
    });
    const reconciler = new PipelineFunction(this, 'Reconciler', {
      name: 'reconciler',
      description: 'Writes pod-deletion-cost on opted-in pods and GPU utilization on nodes from CloudWatch metrics',
      target,
      config: config.reconciler,
      environment: functionEnvironment(config, 'reconciler'),
      logRetention,
      unscopedActions: [
        {
          actions: ['cloudwatch:GetMetricData'],
          why: 'cloudwatch:GetMetricData supports no resource-level permissions; read-only.',
        },
      ],
    });

    const endpoint = new ExtenderEndpoint(this, 'ExtenderEndpoint', { target, config: config.extender, extender, scheduler: config.scheduler, logRetention });

    const labelerInvocation = new EventDrivenInvocation(this, 'LabelerInvocation', {
      function: labeler,
      config: config.labeler,
      eventPatterns: {
        InstanceRunning: {
          source: ['aws.ec2'],
          detailType: ['EC2 Instance State-change Notification'],
          detail: { state: ['running'] },
        },
      },
    });
    const reconcilerInvocation = new EventDrivenInvocation(this, 'ReconcilerInvocation', { function: reconciler, config: config.reconciler });

    const functions = { extender, labeler, reconciler };
    for (const [name, fn] of Object.entries(functions) as [keyof typeof functions, PipelineFunction][]) {
      new LambdaClusterAccess(this, `${fn.node.id}ClusterAccess`, {
        target,
        role: fn.role,
        access: LAMBDA_KUBERNETES_ACCESS[name],
        // Pod access follows the namespaces the reconciler is limited to.
        namespaces: name === 'reconciler' ? config.reconciler.podNamespaces : [],
      });
    }
    // What the writing Lambdas' patches may change, enforced by the API server itself.
    target.cluster.addManifest('LambdaWriteLimits', ...lambdaWriteLimitManifests());
    // GPU intent at admission: opt-in namespaces, node affinity every scheduler and autoscaler reads, annotation checks.
    target.cluster.addManifest('GpuIntentPolicies', ...gpuIntentManifests(gpuIntentOptionsOf(config)));

    new SecondScheduler(this, 'SecondScheduler', {
      target,
      config: config.scheduler,
      extenderUrlPrefix: endpoint.urlPrefix,
      extenderEndpoint: endpoint.loadBalancer.loadBalancerDnsName,
      ...(config.extender.certificateCaBundle === undefined ? {} : { extenderCaBundle: config.extender.certificateCaBundle }),
      extenderTls: endpoint.certificates && endpoint.tlsSecretName !== undefined ? { secretName: endpoint.tlsSecretName, issued: endpoint.certificates.resource } : undefined,
    });

    // Optional: a PodMonitor for the second scheduler and the Grafana dashboard (docs/monitoring.md).
    const monitoring = monitoringManifests(config);
    if (monitoring.length > 0) target.cluster.addManifest('Monitoring', ...monitoring);

    const fnMap = { extender: extender.function, labeler: labeler.function, reconciler: reconciler.function };
    const deadLetterQueues = { labeler: labelerInvocation.deadLetterQueue, reconciler: reconcilerInvocation.deadLetterQueue };
    const alarms = new PipelineAlarms(this, 'Alarms', {
      config: config.alarms,
      loadBalancer: endpoint.loadBalancer,
      functions: fnMap,
      deadLetterQueues,
      ...(endpoint.certificates
        ? { certificates: { function: endpoint.certificates.function, failedRuns: endpoint.certificates.failedRuns, certificateArn: endpoint.certificates.certificateArn } }
        : {}),
    });
    new PipelineDashboard(this, 'Dashboard', {
      dashboardName: config.dashboardName,
      clusterName: config.clusterName,
      loadBalancer: endpoint.loadBalancer,
      functions: fnMap,
      deadLetterQueues,
      alarms: alarms.alarms,
    });

    if (target instanceof AttachedCluster) {
      // kubectl is refused until the provider's access entry exists.
      for (const child of target.node.findAll()) {
        if (child instanceof eks.KubernetesManifest || child instanceof eks.HelmChart) child.node.addDependency(target.kubectlAccess);
      }
    }

    giveEveryFunctionALogGroup(this, logRetention);

    new CfnOutput(this, 'ExtenderUrl', { value: endpoint.urlPrefix, description: 'urlPrefix the gpu-scheduler calls (internal ALB)' });
    new CfnOutput(this, 'DashboardUrl', {
      value: `https://${this.region}.console.aws.amazon.com/cloudwatch/home?region=${this.region}#dashboards:name=${config.dashboardName}`,
      description: 'CloudWatch dashboard',
    });
    new CfnOutput(this, 'SchedulerName', { value: config.scheduler.name, description: 'Set spec.schedulerName to this on GPU pods' });
    new CfnOutput(this, 'ClusterName', { value: config.clusterName });
    new CfnOutput(this, 'GpuCapacity', {
      value: config.cluster.gpuCapacity,
      description: 'What provides GPU nodes: karpenter, node-groups or auto-mode (docs/karpenter.md)',
    });
  }
}

/**
 * The API endpoint and CA of a cluster this stack creates, for the extender's
 * environment. An attached cluster is known by name only; the extender then
 * falls back to DescribeCluster.
 */
function createdClusterEndpoint(target: ClusterTarget): ClusterEndpoint | undefined {
  if (!(target.cluster instanceof eks.Cluster)) return undefined;
  return { endpoint: target.cluster.clusterEndpoint, caData: target.cluster.clusterCertificateAuthorityData };
}
