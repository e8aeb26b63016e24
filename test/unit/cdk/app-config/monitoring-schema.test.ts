import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../../../cdk/app-config/parse-app-config';

describe('monitoring', () => {
  it('is off by default, with the defaults of a kube-prometheus-stack install', () => {
    expect(parseAppConfig(undefined).monitoring).toEqual({
      podMonitor: { enabled: false, labels: {}, prometheusNamespace: 'monitoring', prometheusServiceAccount: 'prometheus', interval: '30s' },
      grafanaDashboard: { enabled: false, namespace: 'monitoring', labels: { grafana_dashboard: '1' } },
    });
  });

  it('takes each setting on its own', () => {
    const config = parseAppConfig({
      monitoring: {
        podMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' }, prometheusNamespace: 'obs', prometheusServiceAccount: 'kube-prometheus-stack-prometheus', interval: '1m30s' },
      },
    });
    expect(config.monitoring.podMonitor).toEqual({ enabled: true, labels: { release: 'kube-prometheus-stack' }, prometheusNamespace: 'obs', prometheusServiceAccount: 'kube-prometheus-stack-prometheus', interval: '1m30s' });
    expect(config.monitoring.grafanaDashboard.enabled).toBe(false);
  });

  it.each([
    [{ podMonitor: { enabled: 'yes' } }, 'monitoring.podMonitor.enabled'],
    [{ podMonitor: { interval: '30 seconds' } }, 'monitoring.podMonitor.interval'],
    [{ podMonitor: { interval: '0' } }, 'monitoring.podMonitor.interval'],
    [{ podMonitor: { prometheusNamespace: 'Monitoring' } }, 'monitoring.podMonitor.prometheusNamespace'],
    [{ podMonitor: { labels: { release: 'not a value' } } }, 'monitoring.podMonitor.labels.release'],
    [{ grafanaDashboard: { namespace: '' } }, 'monitoring.grafanaDashboard.namespace'],
    [{ grafanaDashboard: { sidecar: true } }, 'monitoring.grafanaDashboard.sidecar'],
    [{ prometheus: {} }, 'monitoring.prometheus'],
  ])('rejects %j, naming %s', (monitoring, key) => {
    expect(() => parseAppConfig({ monitoring })).toThrow(key);
  });
});
