import { nodeLabels } from './node-group-schema';
import { crossField, flag, report, settings, text } from './schema-rules';
import { DNS_LABEL } from './value-rules';

const SERVICE_ACCOUNT = { pattern: /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, allowed: 'a ServiceAccount name (lowercase letters, digits, "-", ".")' };
// The PodMonitor CRD's pattern for `interval`.
const INTERVAL = { pattern: /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/, allowed: 'a Prometheus duration such as 30s or 1m' };

/** `monitoring`: the optional Prometheus and Grafana objects (docs/monitoring.md). */
export const monitoringSchema = settings({
  podMonitor: settings({
    enabled: flag()
      .default(false)
      .meta({ description: 'Apply a PodMonitor for the second scheduler, and a Role letting the Prometheus discover its pods (needs the Prometheus Operator\'s CRDs).' }),
    labels: nodeLabels()
      .default({})
      .meta({
        description:
          'Labels on the PodMonitor, for your Prometheus\'s `podMonitorSelector` (kube-prometheus-stack selects `release: <its release name>` unless told otherwise).',
      }),
    prometheusNamespace: text(DNS_LABEL).default('monitoring').meta({ description: 'Namespace of the Prometheus\'s ServiceAccount, which gets read access to the scheduler\'s pods.' }),
    prometheusServiceAccount: text(SERVICE_ACCOUNT).default('prometheus').meta({ description: 'The Prometheus\'s ServiceAccount, bound to the discovery Role.' }),
    interval: text(INTERVAL).default('30s').meta({ description: 'Scrape interval.' }),
  })
    .check(crossField((ctx) => {
      if (ctx.value.interval === '0') report(ctx, ['interval'], 'must be longer than 0', '0');
    }))
    .prefault({}),
  grafanaDashboard: settings({
    enabled: flag().default(false).meta({ description: 'Apply the Grafana dashboard as a ConfigMap for Grafana\'s dashboard sidecar.' }),
    namespace: text(DNS_LABEL).default('monitoring').meta({ description: 'The namespace the sidecar watches (must exist).' }),
    // kube-prometheus-stack's Grafana sidecar looks for this label by default.
    labels: nodeLabels()
      .default({ grafana_dashboard: '1' })
      .meta({ description: 'The labels the sidecar selects ConfigMaps by.' }),
  }).prefault({}),
});
