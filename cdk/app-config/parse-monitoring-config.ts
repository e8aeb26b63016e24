import type { MonitoringConfig } from './app-config';
import { APP_CONFIG_DEFAULTS } from './app-config-defaults';
import type { ConfigReader } from './config-reader';
import { parseNodeLabels } from './node-rules';

const DEFAULTS = APP_CONFIG_DEFAULTS.monitoring;
const DNS_LABEL = { pattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, allowed: 'a DNS-1123 label (lowercase letters, digits, "-", at most 63)' };
const SERVICE_ACCOUNT = { pattern: /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, allowed: 'a ServiceAccount name (lowercase letters, digits, "-", ".")' };
// The PodMonitor CRD's pattern for `interval`.
const INTERVAL = { pattern: /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/, allowed: 'a Prometheus duration such as 30s or 1m' };

/** `monitoring`: the optional Prometheus and Grafana objects. */
export function parseMonitoring(reader: ConfigReader): MonitoringConfig {
  const podMonitorReader = reader.child('podMonitor');
  const podMonitor = {
    enabled: podMonitorReader.boolean('enabled', DEFAULTS.podMonitor.enabled),
    labels: parseNodeLabels(podMonitorReader, DEFAULTS.podMonitor.labels),
    prometheusNamespace: podMonitorReader.string('prometheusNamespace', { default: DEFAULTS.podMonitor.prometheusNamespace, ...DNS_LABEL }),
    prometheusServiceAccount: podMonitorReader.string('prometheusServiceAccount', { default: DEFAULTS.podMonitor.prometheusServiceAccount, ...SERVICE_ACCOUNT }),
    interval: podMonitorReader.string('interval', { default: DEFAULTS.podMonitor.interval, ...INTERVAL }),
  };
  if (podMonitor.interval === '0') podMonitorReader.report('interval', 'must be longer than 0');
  podMonitorReader.done();
  const dashboardReader = reader.child('grafanaDashboard');
  const grafanaDashboard = {
    enabled: dashboardReader.boolean('enabled', DEFAULTS.grafanaDashboard.enabled),
    namespace: dashboardReader.string('namespace', { default: DEFAULTS.grafanaDashboard.namespace, ...DNS_LABEL }),
    labels: parseNodeLabels(dashboardReader, DEFAULTS.grafanaDashboard.labels),
  };
  dashboardReader.done();
  reader.done();
  return { podMonitor, grafanaDashboard };
}
