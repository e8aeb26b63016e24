import type * as eks from 'aws-cdk-lib/aws-eks-v2';
import { Construct } from 'constructs';
import { stringify } from 'yaml';
import type { AppConfig } from '../../app-config/app-config';
import type { ClusterTarget } from '../common/cluster-target';
import { kueueStackObjects } from './kueue-flavors';
import { kueueManagerConfig } from './kueue-manager-config';
import { KUEUE_CHART_REPOSITORY, KUEUE_NAMESPACE, KUEUE_VERSION } from './kueue-release';

export interface KueueProps {
  readonly target: ClusterTarget;
  readonly config: AppConfig;
}

/** The chart's values: its manager configuration replaced by ours (Jobs only, queue name required, waitForPodsReady). */
export function kueueChartValues(config: AppConfig): Record<string, unknown> {
  return {
    managerConfig: {
      controllerManagerConfigYaml: stringify({
        ...kueueManagerConfig({ podsReadyTimeout: config.addons.kueue.podsReadyTimeout, blockAdmission: true }),
        // The chart's own settings for what a pod of it needs.
        health: { healthProbeBindAddress: ':8081' },
        metrics: { bindAddress: ':8443' },
        webhook: { port: 9443 },
        leaderElection: { leaderElect: true, resourceName: 'c1f6bfd2.kueue.x-k8s.io' },
      }),
    },
  };
}

/**
 * Kueue from its chart, then the Topology and flavors (which need its CRDs
 * and webhooks). ClusterQueues and LocalQueues are the operators' (quota is
 * per team): docs/kueue.md.
 */
export class Kueue extends Construct {
  readonly chart: eks.HelmChart;
  readonly objects: eks.KubernetesManifest;

  constructor(scope: Construct, id: string, props: KueueProps) {
    super(scope, id);
    const { cluster } = props.target;
    this.chart = cluster.addHelmChart('Chart', {
      chart: 'kueue',
      repository: KUEUE_CHART_REPOSITORY,
      version: KUEUE_VERSION,
      release: 'kueue',
      namespace: KUEUE_NAMESPACE,
      createNamespace: true,
      values: kueueChartValues(props.config),
      // The objects below go through Kueue's webhooks: its pod must be serving.
      wait: true,
    });
    for (const ready of props.target.computeReady) this.chart.node.addDependency(ready);
    this.objects = cluster.addManifest('Objects', ...kueueStackObjects(props.config));
    this.objects.node.addDependency(this.chart);
  }
}
