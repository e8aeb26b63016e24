import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import { dashboardModel, grafanaDashboardConfigMap, monitoringManifests, scrapeJob } from '../../../../../cdk/lib/monitoring/monitoring-manifests';

describe('monitoringManifests', () => {
  it('is empty by default: nothing needs the Prometheus Operator\'s CRDs or a Grafana', () => {
    expect(monitoringManifests(parseAppConfig(undefined))).toEqual([]);
  });

  it('each setting turns on its own objects', () => {
    const podMonitor = monitoringManifests(parseAppConfig({ monitoring: { podMonitor: { enabled: true } } }));
    expect(podMonitor.map((o) => o.kind)).toEqual(['PodMonitor', 'Role', 'RoleBinding']);
    const dashboard = monitoringManifests(parseAppConfig({ monitoring: { grafanaDashboard: { enabled: true } } }));
    expect(dashboard.map((o) => o.kind)).toEqual(['ConfigMap']);
  });

  it('puts the dashboard in a ConfigMap labelled for Grafana\'s sidecar, in its namespace', () => {
    const config = parseAppConfig({ scheduler: { namespace: 'gpu-system' }, monitoring: { grafanaDashboard: { enabled: true, namespace: 'grafana', labels: { grafana_dashboard: 'yes' } } } });
    const map = grafanaDashboardConfigMap(config) as { metadata: { namespace: string; labels: Record<string, string> }; data: Record<string, string> };
    expect(map.metadata.namespace).toBe('grafana');
    expect(map.metadata.labels).toMatchObject({ grafana_dashboard: 'yes' });
    const json = JSON.parse(map.data['gpu-scheduling.json'] ?? '') as unknown;
    expect(json).toEqual(JSON.parse(JSON.stringify(dashboardModel(config))));
    // The dashboard's Prometheus queries name the job the PodMonitor and the scrape job give the series.
    expect(JSON.stringify(json)).toContain('job=\\"gpu-system/gpu-scheduler-metrics\\"');
  });

  it('gives the scrape job the configured interval and the scheduler\'s namespace', () => {
    const job = scrapeJob(parseAppConfig({ scheduler: { namespace: 'gpu-system' }, monitoring: { podMonitor: { interval: '1m' } } }));
    expect(job.scrape_interval).toBe('1m');
    expect(job.kubernetes_sd_configs).toEqual([{ role: 'pod', namespaces: { names: ['gpu-system'] } }]);
  });
});
