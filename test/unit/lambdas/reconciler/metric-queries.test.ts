import { describe, expect, it } from 'vitest';
import { chunk, MAX_QUERIES_PER_CALL, nodeMetricPlan, podMetricPlan } from '../../../../lambdas/reconciler/metric-queries';
import type { PodView } from '../../../../lambdas/reconciler/pod-view';

const settings = {
  periodSeconds: 300,
  stat: 'Average',
  namespace: 'GpuWorkloads',
  activeRequestsMetric: 'active_requests',
  cacheHitRateMetric: 'cache_hit_rate',
  avgResponseTimeMetric: 'avg_response_time_ms',
  namespaceDimension: 'Namespace',
  podNameDimension: 'PodName',
};
const pods: PodView[] = Array.from({ length: 1000 }, (_, i) => ({
  namespace: `ns-${i % 3}`,
  name: `web-${i}`,
  nodeName: undefined,
  terminating: false,
  readySince: undefined,
  currentCost: undefined,
  currentKarpenterCost: undefined,
  controller: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
}));

describe('podMetricPlan', () => {
  const plan = podMetricPlan(pods, settings);

  it('asks three MetricStat queries per pod, with valid and unique ids', () => {
    expect(plan.queries).toHaveLength(3000);
    const ids = plan.queries.map((q) => q.Id ?? '');
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9_]*$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the configured namespace, metrics, statistic, period and dimensions', () => {
    expect(plan.queries.slice(3, 6).map((q) => q.MetricStat)).toEqual(
      ['active_requests', 'cache_hit_rate', 'avg_response_time_ms'].map((MetricName) => ({
        Metric: {
          Namespace: 'GpuWorkloads',
          MetricName,
          Dimensions: [
            { Name: 'Namespace', Value: 'ns-1' },
            { Name: 'PodName', Value: 'web-1' },
          ],
        },
        Period: 300,
        Stat: 'Average',
      })),
    );
  });

  it('maps results back to the right pod and metric; absent ids stay undefined', () => {
    const values = new Map([
      [plan.queries[3 * 7]?.Id ?? '', 12],
      [plan.queries[3 * 7 + 2]?.Id ?? '', 80],
    ]);
    expect(plan.signalsFor(7, values)).toEqual({ activeRequests: 12, cacheHitRate: undefined, avgResponseTimeMs: 80 });
    expect(plan.signalsFor(8, values)).toEqual({ activeRequests: undefined, cacheHitRate: undefined, avgResponseTimeMs: undefined });
  });

  it('splits into ceil(queries / 500) batches of at most 500', () => {
    const batches = chunk(plan.queries, MAX_QUERIES_PER_CALL);
    expect(batches).toHaveLength(6);
    expect(batches.every((b) => b.length <= 500)).toBe(true);
    expect(chunk([1, 2, 3], 500)).toEqual([[1, 2, 3]]);
    expect(chunk([], 500)).toEqual([]);
  });
});

describe('nodeMetricPlan', () => {
  it('queries the node-level Container Insights series, skipping nodes without an EC2 instance id', () => {
    const plan = nodeMetricPlan(
      [
        { name: 'ip-10-0-0-1.ec2.internal', instanceId: 'i-0abc', annotations: {} },
        { name: 'kind-node', instanceId: undefined, annotations: {} },
      ],
      { periodSeconds: 300, stat: 'Average', namespace: 'ContainerInsights', metricName: 'node_gpu_utilization', clusterName: 'prod' },
    );
    expect(plan.queries).toHaveLength(1);
    expect(plan.queries[0]?.MetricStat?.Metric).toEqual({
      Namespace: 'ContainerInsights',
      MetricName: 'node_gpu_utilization',
      Dimensions: [
        { Name: 'ClusterName', Value: 'prod' },
        { Name: 'InstanceId', Value: 'i-0abc' },
        { Name: 'NodeName', Value: 'ip-10-0-0-1.ec2.internal' },
      ],
    });
    expect(plan.utilizationFor(0, new Map([[plan.queries[0]?.Id ?? '', 42]]))).toBe(42);
    expect(plan.utilizationFor(1, new Map([[plan.queries[0]?.Id ?? '', 42]]))).toBeUndefined();
  });
});
