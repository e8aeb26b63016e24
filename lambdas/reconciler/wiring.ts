import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Env } from '../env';
import { awsClientConfigFromEnv, createCloudWatchClient } from '../aws';
import { createNodeGateway, createPodGateway, createDraGateway, kubeConfigFromEnvironment, kubeConfigOf } from '../kube';
import type { KubeConnection } from '../kube/kube-http-client';
import { cloudWatchMetricReader } from './cloudwatch-metric-reader';
import type { ReconcilerConfig } from './config';
import { reconcilerConfigFromEnv } from './config';
import { kubeAnnotationWriter, kubeClusterReader } from './kube-objects';
import type { ReconcileDeps } from './reconcile';
import { SchedulerCounterTracker } from './scheduler-metrics';
import { schedulerMetricsConfigFromEnv } from './scheduler-metrics-config';
import { podProxySchedulerMetricsSource } from './scheduler-metrics-source';
import type { SchedulerMetricsDeps } from './scheduler-metrics-step';

/** What the reconciler's handler runs on, built once per container. */
export interface ReconcilerDeps {
  readonly config: ReconcilerConfig;
  readonly deps: ReconcileDeps;
  /** The second scheduler's /metrics; undefined when SCHEDULER_NAMESPACE is unset. */
  readonly schedulerMetrics?: SchedulerMetricsDeps;
}

export interface ReconcilerOverrides {
  /** A client of the caller's (benchmarks and tests count its calls with a middleware). */
  readonly cloudWatch?: CloudWatchClient;
  /** The API server in place of the EKS cluster CLUSTER_NAME names: local hosts pass a kubeconfig file's (local/control-plane/kubeconfig-connection.ts). */
  readonly kubeConnection?: () => Promise<KubeConnection>;
}

/**
 * The one place the reconciler's dependencies are built from its environment:
 * configuration, the CloudWatch client and the Kubernetes gateways. Throws a
 * ConfigError naming the variable on bad configuration.
 */
export async function wireReconciler(env: Env, overrides: ReconcilerOverrides = {}): Promise<ReconcilerDeps> {
  const config = reconcilerConfigFromEnv(env);
  const cloudWatch = overrides.cloudWatch ?? createCloudWatchClient(awsClientConfigFromEnv(env));
  const kc = overrides.kubeConnection === undefined ? await kubeConfigFromEnvironment(env) : kubeConfigOf(await overrides.kubeConnection());
  const pods = createPodGateway(kc);
  const nodes = createNodeGateway(kc);
  const schedulerConfig = schedulerMetricsConfigFromEnv(env);
  return {
    config,
    deps: {
      cluster: kubeClusterReader(pods, nodes, createDraGateway(kc), config.selection),
      writer: kubeAnnotationWriter(pods, nodes),
      metrics: cloudWatchMetricReader(cloudWatch),
      now: () => new Date(),
    },
    ...(schedulerConfig && {
      schedulerMetrics: {
        source: podProxySchedulerMetricsSource(kc, schedulerConfig),
        tracker: new SchedulerCounterTracker(),
        profile: schedulerConfig.profile,
      },
    }),
  };
}
