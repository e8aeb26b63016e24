import type { MetricDefinition } from './metric-catalog';

/** EMF's limit on the metrics of one directive and on the values of one metric. */
const MAX_VALUES = 100;

/**
 * One EMF document for catalog metrics that share one set of dimensions, as
 * Powertools' Metrics.serializeMetrics() builds it for an instance whose
 * default dimensions are `service` and then `dimensions`: the same keys in the
 * same order, so CloudWatch reads the same metrics
 * (test/unit/lambdas/observability/emf-document.test.ts holds it to
 * Powertools' own output).
 *
 * Why not Powertools per record: the extender writes one of these per
 * request and Verb and one per rejection Reason, and the library's
 * per-document work (value and unit checks against its enums, the
 * key-collision scan, a Console write) was a third of a 1,000-node NodeNames
 * call (docs/benchmarks.md). Undimensioned metrics still go through
 * Powertools, buffered per invocation.
 */
export function emfDocument(
  namespace: string,
  service: string,
  dimensions: Readonly<Record<string, string>>,
  values: readonly (readonly [MetricDefinition, number])[],
  timestamp: number,
): string {
  // Powertools would split more into several documents; no caller records that many at once.
  if (values.length > MAX_VALUES) throw new RangeError(`an EMF document takes at most ${MAX_VALUES} values, got ${values.length}`);
  const dimensionNames = ['service'];
  const document: Record<string, unknown> = {};
  const definitions: { Name: string; Unit: string }[] = [];
  document._aws = { Timestamp: timestamp, CloudWatchMetrics: [{ Namespace: namespace, Dimensions: [dimensionNames], Metrics: definitions }] };
  document.service = service;
  for (const name in dimensions) {
    // A `service` dimension overrides the default's value in its place, as a Powertools default dimension does.
    if (name !== 'service') dimensionNames.push(name);
    document[name] = dimensions[name];
  }
  const stored = new Map<string, number | number[]>();
  for (const [metric, value] of values) {
    // Powertools' storeMetric check, kept so a bad value fails the same way.
    if (typeof value !== 'number') throw new RangeError(`${String(value)} is not a valid number`);
    const previous = stored.get(metric.name);
    if (previous === undefined) {
      definitions.push({ Name: metric.name, Unit: metric.unit });
      stored.set(metric.name, value);
    } else if (Array.isArray(previous)) previous.push(value);
    else stored.set(metric.name, [previous, value]);
  }
  for (const [name, value] of stored) document[name] = value;
  return JSON.stringify(document);
}
