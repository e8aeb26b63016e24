import { describe, expect, it } from 'vitest';
import { METRIC, METRICS_NAMESPACE } from '../../../../../lambdas/observability/metric-catalog';
import { catalogMetric, dimensionCombinations } from '../../../../../cdk/lib/observability/catalog-metrics';
import { catalogMismatch } from '../../support/metric-coverage';

describe('catalog metrics for the dashboard', () => {
  it('builds a metric with the namespace, the service dimension and the catalog dimensions', () => {
    const metric = catalogMetric(METRIC.extenderLatency, { Verb: 'filter' }, { statistic: 'p99' });
    expect(metric.namespace).toBe(METRICS_NAMESPACE);
    expect(metric.metricName).toBe('ExtenderLatency');
    expect(metric.dimensions).toEqual({ service: 'gpu-extender', Verb: 'filter' });
  });

  it('refuses dimensions or values the Lambda never emits', () => {
    expect(() => catalogMetric(METRIC.extenderLatency, {}, { statistic: 'p99' })).toThrow(/dimensions \[Verb\]/);
    expect(() => catalogMetric(METRIC.extenderLatency, { Verb: 'bind' }, { statistic: 'p99' })).toThrow(/Verb=bind is never emitted/);
  });

  it('enumerates every dimension value', () => {
    expect(dimensionCombinations(METRIC.nodesRejected)).toHaveLength(METRIC.nodesRejected.dimensions.Reason.length);
    expect(dimensionCombinations(METRIC.nodesLabeled)).toEqual([{}]);
  });
});

describe('the template metric check itself', () => {
  const good = { namespace: METRICS_NAMESPACE, metricName: 'ExtenderErrors', dimensions: { service: 'gpu-extender', Verb: 'filter' }, where: 'test' };

  it('accepts an emitted metric and AWS-published ones', () => {
    expect(catalogMismatch(good)).toBeUndefined();
    expect(catalogMismatch({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensions: {}, where: 'test' })).toBeUndefined();
  });

  it.each([
    [{ ...good, metricName: 'ExtenderFailures' }, 'not in the metric catalog'],
    [{ ...good, dimensions: { Verb: 'filter' } }, 'has dimensions [Verb]'],
    [{ ...good, dimensions: { service: 'gpu-node-labeler', Verb: 'filter' } }, 'emitted by gpu-extender'],
    [{ ...good, dimensions: { service: 'gpu-extender', Verb: 'bind' } }, 'Verb=bind is never emitted'],
    [{ ...good, namespace: 'Custom/Other' }, 'neither ours nor AWS-published'],
  ])('reports %j', (reference, problem) => {
    expect(catalogMismatch(reference)).toContain(problem);
  });
});
