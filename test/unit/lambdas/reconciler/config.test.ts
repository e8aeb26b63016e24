import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { reconcilerConfigFromEnv } from '../../../../lambdas/reconciler/config';

const base = { CLUSTER_NAME: 'prod' };

describe('reconcilerConfigFromEnv', () => {
  it('defaults to the seed policy and the documented discipline', () => {
    const { settings, selection } = reconcilerConfigFromEnv(base);
    expect(selection).toEqual({ podLabelSelector: 'gpu.nvidia.com/deletion-cost=enabled', podSelector: [{ key: 'gpu.nvidia.com/deletion-cost', operator: 'Equals', values: ['enabled'] }], namespaces: [], nodeLabelSelector: 'gpu.nvidia.com/count', pageSize: 500 });
    expect(settings.policy).toMatchObject({ activeRequestsWeight: 5, cacheHitRateWeight: 100, maxCost: 1000, warmupSeconds: 300, warmupCost: -50, noSignalCost: 0 });
    expect(settings.podDiscipline).toEqual({ bucketSize: 50, hysteresis: 10 });
    expect(settings.maxPodWritesPerRun).toBe(50);
    expect(settings.podMetrics).toMatchObject({ namespace: 'GpuWorkloads', periodSeconds: 300, stat: 'Average', namespaceDimension: 'Namespace', podNameDimension: 'PodName' });
    expect(settings.nodes).toMatchObject({ enabled: true, annotation: 'gpu.nvidia.com/utilization', metrics: { namespace: 'ContainerInsights', metricName: 'node_gpu_utilization', clusterName: 'prod' } });
  });

  it('reads every knob', () => {
    const { settings, selection } = reconcilerConfigFromEnv({
      ...base,
      POD_NAMESPACES: 'serving, batch',
      COST_BUCKET_SIZE: '25',
      COST_HYSTERESIS: '0',
      MAX_POD_WRITES_PER_RUN: '7',
      WARMUP_PERIOD: '90s',
      WARMUP_DELETION_COST: '-100',
      METRICS_LOOKBACK: '10m',
      COST_WEIGHT_CACHE_HIT_RATE: '250.5',
    });
    expect(selection.namespaces).toEqual(['serving', 'batch']);
    expect(settings.podDiscipline).toEqual({ bucketSize: 25, hysteresis: 0 });
    expect(settings.maxPodWritesPerRun).toBe(7);
    expect(settings.policy.warmupSeconds).toBe(90);
    expect(settings.policy.warmupCost).toBe(-100);
    expect(settings.policy.cacheHitRateWeight).toBe(250.5);
    expect(settings.podMetrics.periodSeconds).toBe(600);
  });

  it.each([
    ['COST_BUCKET_SIZE', '0'],
    ['MAX_DELETION_COST', '3000000000'],
    ['WARMUP_DELETION_COST', 'low'],
    ['METRICS_LOOKBACK', '90s'],
    ['METRICS_LOOKBACK', '300'],
    ['METRICS_STAT', 'Median'],
    ['POD_NAMESPACES', 'Bad_NS'],
    ['MODERATE_LATENCY_MS', '50'],
    ['MAX_POD_WRITES_PER_RUN', '-1'],
  ])('rejects %s=%s with an error naming the variable', (name, value) => {
    let caught: unknown;
    try {
      reconcilerConfigFromEnv({ ...base, [name]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).variable).toBe(name);
    expect((caught as ConfigError).message).toContain(name);
  });

  it('needs CLUSTER_NAME for node utilization, and not when it is switched off', () => {
    expect(() => reconcilerConfigFromEnv({})).toThrow(/CLUSTER_NAME/);
    expect(reconcilerConfigFromEnv({ NODE_UTILIZATION_ENABLED: 'false' }).settings.nodes.enabled).toBe(false);
  });
});
