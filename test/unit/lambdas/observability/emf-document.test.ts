import { Metrics } from '@aws-lambda-powertools/metrics';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emfDocument } from '../../../../lambdas/observability/emf-document';
import type { MetricDefinition } from '../../../../lambdas/observability/metric-catalog';
import { METRIC, METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';

/** Timestamps CloudWatch takes (Powertools warns outside 14 days back, 2 hours ahead). */
const NOW = Date.now();
const DAY_MS = 86_400_000;
const DIMENSIONED = Object.values(METRIC).filter((m) => Object.keys(m.dimensions).length > 0);

/** The document Powertools builds for the same records: an instance with these default dimensions, one addMetric each. */
function powertoolsDocument(service: string, dimensions: Record<string, string>, values: readonly (readonly [MetricDefinition, number])[], timestamp: number): string {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, defaultDimensions: { ...dimensions } });
  for (const [metric, value] of values) metrics.addMetric(metric.name, metric.unit, value);
  metrics.setTimestamp(timestamp);
  return JSON.stringify(metrics.serializeMetrics());
}

/** A catalog metric with one of its allowed dimension sets, and some of the metrics sharing that set (repeats allowed). */
const records = fc
  .constantFrom(...DIMENSIONED)
  .chain((first) =>
    fc.record({
      dimensions: fc.record(Object.fromEntries(Object.entries(first.dimensions).map(([name, allowed]) => [name, fc.constantFrom(...allowed)]))),
      metrics: fc.array(fc.constantFrom(...DIMENSIONED.filter((m) => sameDimensionNames(m, first))), { minLength: 1, maxLength: 6 }),
    }),
  )
  .chain(({ dimensions, metrics }) =>
    fc.record({
      dimensions: fc.constant(dimensions as Record<string, string>),
      values: fc.tuple(...metrics.map((m) => fc.tuple(fc.constant(m), fc.oneof(fc.nat(10_000), fc.double())))),
    }),
  );

function sameDimensionNames(a: MetricDefinition, b: MetricDefinition): boolean {
  return Object.keys(a.dimensions).join() === Object.keys(b.dimensions).join();
}

describe('emfDocument', () => {
  it('is the document Powertools writes for the same records, byte for byte', () => {
    fc.assert(
      fc.property(records, fc.constantFrom(...Object.values(SERVICE)), fc.integer({ min: NOW - 13 * DAY_MS, max: NOW + 3_600_000 }), ({ dimensions, values }, service, timestamp) => {
        expect(emfDocument(METRICS_NAMESPACE, service, dimensions, values, timestamp)).toBe(powertoolsDocument(service, dimensions, values, timestamp));
      }),
      { numRuns: 300 },
    );
  });

  it('lists a repeated metric once, with its values in order, as Powertools does', () => {
    const line = JSON.parse(emfDocument(METRICS_NAMESPACE, SERVICE.extender, { Reason: 'NodeNotFound' }, [[METRIC.nodesRejected, 2], [METRIC.nodesRejected, 5]], 1)) as Record<string, unknown>;
    expect(line.NodesRejected).toEqual([2, 5]);
    expect(line).toMatchObject({ _aws: { CloudWatchMetrics: [{ Dimensions: [['service', 'Reason']], Metrics: [{ Name: 'NodesRejected', Unit: 'Count' }] }] } });
  });

  it('rejects a value that is not a number, and more values than one document takes', () => {
    const notNumber = 'many' as unknown as number;
    expect(() => emfDocument(METRICS_NAMESPACE, SERVICE.extender, { Verb: 'filter' }, [[METRIC.extenderLatency, notNumber]], 1)).toThrow('many is not a valid number');
    const tooMany = Array.from({ length: 101 }, () => [METRIC.extenderLatency, 1] as const);
    expect(() => emfDocument(METRICS_NAMESPACE, SERVICE.extender, { Verb: 'filter' }, tooMany, 1)).toThrow('at most 100 values, got 101');
  });
});
