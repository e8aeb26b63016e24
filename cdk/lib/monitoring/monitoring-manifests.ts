// Pure (no CDK imports): the optional Prometheus and Grafana objects of the
// app's configuration, which the stack applies and `npm run monitoring` prints.
import type { AppConfig } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { grafanaDashboard } from './grafana-dashboard';
import { schedulerPodMonitorManifests, schedulerScrapeJob, schedulerScrapeJobLabel, type ScrapeJob, type SchedulerScrapeTarget } from './scheduler-scrape';

const scrapeTarget = (config: AppConfig): SchedulerScrapeTarget => ({ namespace: config.scheduler.namespace, schedulerName: config.scheduler.name });

/** The Grafana dashboard's JSON model for this configuration. */
export function dashboardModel(config: AppConfig): ReturnType<typeof grafanaDashboard> {
  return grafanaDashboard({
    clusterName: config.clusterName,
    cloudWatchDashboardName: config.dashboardName,
    job: schedulerScrapeJobLabel(scrapeTarget(config)),
    profile: config.scheduler.name,
  });
}

/** The dashboard as a ConfigMap for Grafana's dashboard sidecar (kube-prometheus-stack, grafana chart). */
export function grafanaDashboardConfigMap(config: AppConfig): KubernetesObject {
  const { namespace, labels } = config.monitoring.grafanaDashboard;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${config.scheduler.name}-dashboard`, namespace, labels: { 'app.kubernetes.io/part-of': 'gpu-scheduling', ...labels } },
    data: { 'gpu-scheduling.json': JSON.stringify(dashboardModel(config)) },
  };
}

/** What the stack applies for `monitoring`: nothing unless a setting is on. */
export function monitoringManifests(config: AppConfig): KubernetesObject[] {
  const { podMonitor, grafanaDashboard: dashboard } = config.monitoring;
  return [
    ...(podMonitor.enabled ? schedulerPodMonitorManifests({ ...scrapeTarget(config), ...podMonitor }) : []),
    ...(dashboard.enabled ? [grafanaDashboardConfigMap(config)] : []),
  ];
}

/** The scrape job for a Prometheus without the Operator (Amazon Managed Service for Prometheus's collector, or a plain one). */
export function scrapeJob(config: AppConfig): ScrapeJob {
  return schedulerScrapeJob(scrapeTarget(config), config.monitoring.podMonitor.interval);
}
