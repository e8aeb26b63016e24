// Pure (no CDK imports): the local harness applies the same objects and runs
// a real Prometheus on the same scrape job (test/e2e/prometheus-scrape.test.ts).
import type { PodMonitorConfig } from '../../app-config/app-config';
import type { KubernetesObject } from '../common/kubernetes-object';
import { SECURE_PORT_NAME } from '../scheduler/second-scheduler-manifests';

/** Which pods serve the second scheduler's /metrics. */
export interface SchedulerScrapeTarget {
  /** The second scheduler's namespace. */
  readonly namespace: string;
  /** Its Deployment's name, which is also the profile's scheduler name and its pods' `app.kubernetes.io/name`. */
  readonly schedulerName: string;
}

export type SchedulerPodMonitorProps = SchedulerScrapeTarget & Pick<PodMonitorConfig, 'labels' | 'prometheusNamespace' | 'prometheusServiceAccount' | 'interval'>;

/** The pods' selector, as the Deployment sets it (second-scheduler-manifests.ts). */
const podSelector = (target: SchedulerScrapeTarget): Record<string, string> => ({ 'app.kubernetes.io/name': target.schedulerName });
const monitorName = (target: SchedulerScrapeTarget): string => `${target.schedulerName}-metrics`;

/**
 * The `job` label of the scraped series. The Prometheus Operator sets it to
 * `<namespace>/<PodMonitor name>` for a PodMonitor without `jobLabel`, and
 * the scrape job below does the same, so the Grafana dashboard's queries
 * find the series whichever of the two a team runs.
 */
export const schedulerScrapeJobLabel = (target: SchedulerScrapeTarget): string => `${target.namespace}/${monitorName(target)}`;

/**
 * kube-scheduler serves /metrics over HTTPS with a certificate it generates
 * itself at start (no CA anyone could pin), so the scrape skips verification;
 * it sends no credentials either, because /metrics is one of the scheduler's
 * always-allowed paths (ALWAYS_ALLOW_PATHS: counts and latencies, no pod names).
 */
const ENDPOINT = { port: SECURE_PORT_NAME, scheme: 'https', path: '/metrics', tlsConfig: { insecureSkipVerify: true } } as const;

/**
 * A PodMonitor for a Prometheus Operator's Prometheus, and the least its
 * Prometheus needs to discover the scheduler's pods: list and watch pods in
 * the scheduler's namespace (a Role, not a ClusterRole). No right on
 * /metrics itself is needed (see ENDPOINT). A Prometheus installed by
 * kube-prometheus-stack already has cluster-wide pod discovery; the Role
 * makes a narrower one (e.g. an agent allowed only its own namespaces) work too.
 */
export function schedulerPodMonitorManifests(props: SchedulerPodMonitorProps): KubernetesObject[] {
  const name = monitorName(props);
  const labels = { 'app.kubernetes.io/part-of': 'gpu-scheduling' };
  const discovery = `${name}-discovery`;
  return [
    {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PodMonitor',
      metadata: { name, namespace: props.namespace, labels: { ...labels, ...props.labels } },
      spec: {
        selector: { matchLabels: podSelector(props) },
        namespaceSelector: { matchNames: [props.namespace] },
        podMetricsEndpoints: [{ ...ENDPOINT, interval: props.interval }],
      },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: discovery, namespace: props.namespace, labels },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: discovery, namespace: props.namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: discovery },
      subjects: [{ kind: 'ServiceAccount', name: props.prometheusServiceAccount, namespace: props.prometheusNamespace }],
    },
  ];
}

/** A Prometheus `scrape_configs` entry (snake_case, as Prometheus reads it). */
export type ScrapeJob = Record<string, unknown>;

/**
 * The scrape job the Prometheus Operator (v0.85, pkg/prometheus/promcfg.go
 * generatePodMonitorConfig) generates from the PodMonitor above, for a
 * Prometheus without the Operator: Amazon Managed Service for Prometheus's
 * managed collector, or a plain one. Running pods only, the selector's
 * labels, the named port; namespace, container, pod, job and endpoint labels.
 * Inside the cluster, kubernetes_sd uses the pod's own credentials; from
 * outside, add `api_server` and `authorization` to `kubernetes_sd_configs`.
 */
export function schedulerScrapeJob(target: SchedulerScrapeTarget, interval: string): ScrapeJob {
  const name = monitorName(target);
  const keepLabels = Object.entries(podSelector(target)).map(([key, value]) => {
    const sanitized = key.replace(/[^a-zA-Z0-9_]/g, '_');
    return {
      action: 'keep',
      source_labels: [`__meta_kubernetes_pod_label_${sanitized}`, `__meta_kubernetes_pod_labelpresent_${sanitized}`],
      regex: `(${value});true`,
    };
  });
  return {
    job_name: `podMonitor/${target.namespace}/${name}/0`,
    kubernetes_sd_configs: [{ role: 'pod', namespaces: { names: [target.namespace] } }],
    scrape_interval: interval,
    metrics_path: ENDPOINT.path,
    scheme: ENDPOINT.scheme,
    tls_config: { insecure_skip_verify: ENDPOINT.tlsConfig.insecureSkipVerify },
    relabel_configs: [
      { source_labels: ['job'], target_label: '__tmp_prometheus_job_name' },
      { action: 'drop', source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)' },
      ...keepLabels,
      { action: 'keep', source_labels: ['__meta_kubernetes_pod_container_port_name'], regex: ENDPOINT.port },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { target_label: 'job', replacement: schedulerScrapeJobLabel(target) },
      { target_label: 'endpoint', replacement: ENDPOINT.port },
    ],
  };
}
