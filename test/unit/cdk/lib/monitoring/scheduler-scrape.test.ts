import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../../cdk/app-config/parse-app-config';
import { schedulerPodMonitorManifests, schedulerScrapeJob, schedulerScrapeJobLabel } from '../../../../../cdk/lib/monitoring/scheduler-scrape';
import { secondSchedulerManifests } from '../../../../../cdk/lib/scheduler/second-scheduler-manifests';

const config = parseAppConfig(undefined);
const target = { namespace: 'gpu-system', schedulerName: 'gpu-scheduler' };
const manifests = schedulerPodMonitorManifests({ ...target, ...config.monitoring.podMonitor, labels: { release: 'kps' }, prometheusNamespace: 'monitoring', prometheusServiceAccount: 'kps-prometheus' });
function byKind(kind: string): Record<string, unknown> {
  const found = manifests.find((m) => m.kind === kind);
  if (!found) throw new Error(`no ${kind}`);
  return found;
}

interface Container {
  ports?: { name: string; containerPort: number }[];
}
/** The container port and pod labels the Deployment really declares. */
function deployedScheduler(): { labels: Record<string, string>; port: { name: string; containerPort: number } } {
  const objects = secondSchedulerManifests({ scheduler: { ...config.scheduler, namespace: target.namespace }, extenderUrlPrefix: 'https://x:443' });
  const deployment = objects.find((o) => o.kind === 'Deployment') as { spec: { template: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } } } };
  const port = deployment.spec.template.spec.containers[0]?.ports?.[0];
  if (!port) throw new Error('the scheduler container declares no port');
  return { labels: deployment.spec.template.metadata.labels, port };
}

describe('the PodMonitor', () => {
  it('selects the Deployment\'s pods by a label they carry, on the port they declare, in their namespace only', () => {
    const { labels, port } = deployedScheduler();
    const spec = byKind('PodMonitor').spec as { selector: { matchLabels: Record<string, string> }; namespaceSelector: unknown; podMetricsEndpoints: Record<string, unknown>[] };
    for (const [key, value] of Object.entries(spec.selector.matchLabels)) expect(labels[key]).toBe(value);
    expect(spec.namespaceSelector).toEqual({ matchNames: ['gpu-system'] });
    expect(spec.podMetricsEndpoints).toEqual([{ port: port.name, scheme: 'https', path: '/metrics', tlsConfig: { insecureSkipVerify: true }, interval: '30s' }]);
    expect(port.containerPort).toBe(10259);
  });

  it('carries the labels a Prometheus selects PodMonitors by', () => {
    expect((byKind('PodMonitor').metadata as { labels: Record<string, string> }).labels).toMatchObject({ release: 'kps' });
  });

  it('grants the Prometheus only pod discovery, in the scheduler\'s namespace (a Role, bound to its ServiceAccount)', () => {
    expect(manifests.map((m) => m.kind).sort()).toEqual(['PodMonitor', 'Role', 'RoleBinding']);
    expect(byKind('Role').rules).toEqual([{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }]);
    expect((byKind('Role').metadata as { namespace: string }).namespace).toBe('gpu-system');
    expect(byKind('RoleBinding').subjects).toEqual([{ kind: 'ServiceAccount', name: 'kps-prometheus', namespace: 'monitoring' }]);
  });
});

describe('the scrape job', () => {
  const job = schedulerScrapeJob(target, '15s') as { job_name: string; kubernetes_sd_configs: unknown; relabel_configs: Record<string, unknown>[]; scheme: string; metrics_path: string; scrape_interval: string };

  it('is the PodMonitor\'s, as the Operator names and labels it', () => {
    expect(job.job_name).toBe('podMonitor/gpu-system/gpu-scheduler-metrics/0');
    expect(job.kubernetes_sd_configs).toEqual([{ role: 'pod', namespaces: { names: ['gpu-system'] } }]);
    expect([job.scheme, job.metrics_path, job.scrape_interval]).toEqual(['https', '/metrics', '15s']);
    expect(job.relabel_configs).toContainEqual({ target_label: 'job', replacement: schedulerScrapeJobLabel(target) });
    expect(schedulerScrapeJobLabel(target)).toBe(`gpu-system/${(byKind('PodMonitor').metadata as { name: string }).name}`);
  });

  it('keeps running pods with the selector\'s label and the named port, as the Operator\'s relabelling does', () => {
    const { labels, port } = deployedScheduler();
    const keeps = job.relabel_configs.filter((r) => r.action === 'keep');
    expect(keeps).toEqual([
      {
        action: 'keep',
        source_labels: ['__meta_kubernetes_pod_label_app_kubernetes_io_name', '__meta_kubernetes_pod_labelpresent_app_kubernetes_io_name'],
        regex: `(${labels['app.kubernetes.io/name']});true`,
      },
      { action: 'keep', source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: port.name },
    ]);
    expect(job.relabel_configs).toContainEqual({ action: 'drop', source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)' });
  });
});
