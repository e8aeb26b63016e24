import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { schedulerMetricsConfigFromEnv } from '../../../../lambdas/reconciler/scheduler-metrics-config';

describe('schedulerMetricsConfigFromEnv', () => {
  it('is off without SCHEDULER_NAMESPACE', () => {
    expect(schedulerMetricsConfigFromEnv({ GPU_SCHEDULER_NAME: 'gpu-scheduler' })).toBeUndefined();
  });

  it('selects the Deployment’s pods by name, reads that profile, on kube-scheduler’s secure port by default', () => {
    expect(schedulerMetricsConfigFromEnv({ SCHEDULER_NAMESPACE: 'kube-system' })).toEqual({
      namespace: 'kube-system',
      podSelector: 'app.kubernetes.io/name=gpu-scheduler',
      profile: 'gpu-scheduler',
      port: 10259,
    });
    expect(schedulerMetricsConfigFromEnv({ SCHEDULER_NAMESPACE: 'sched', GPU_SCHEDULER_NAME: 'a100s', SCHEDULER_METRICS_PORT: '8443' })).toMatchObject({
      podSelector: 'app.kubernetes.io/name=a100s',
      profile: 'a100s',
      port: 8443,
    });
  });

  it.each([
    [{ SCHEDULER_NAMESPACE: 'Kube_System' }, 'SCHEDULER_NAMESPACE'],
    [{ SCHEDULER_NAMESPACE: 'kube-system', GPU_SCHEDULER_NAME: 'a,b' }, 'GPU_SCHEDULER_NAME'],
    [{ SCHEDULER_NAMESPACE: 'kube-system', SCHEDULER_METRICS_PORT: '0' }, 'SCHEDULER_METRICS_PORT'],
  ])('refuses %j', (env, variable) => {
    expect(() => schedulerMetricsConfigFromEnv(env)).toThrow(ConfigError);
    expect(() => schedulerMetricsConfigFromEnv(env)).toThrow(variable);
  });
});
