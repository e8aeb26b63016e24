// Reads the project's metrics back out of the EMF lines a Lambda wrote (as
// CloudWatch would): shared by the e2e files that run the reconciler.
import { METRICS_NAMESPACE } from '../../lambdas/observability/metric-catalog';

export interface EmfValue {
  readonly value: unknown;
  readonly dimensions: Record<string, string>;
}

/** Every value of `metric` in `records` (EMF log records), with its dimensions besides `service`. */
export function emfValues(records: readonly Record<string, unknown>[], metric: string): EmfValue[] {
  const found: EmfValue[] = [];
  for (const record of records) {
    const aws = record._aws as { CloudWatchMetrics?: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } | undefined;
    for (const directive of aws?.CloudWatchMetrics ?? []) {
      if (directive.Namespace !== METRICS_NAMESPACE || !directive.Metrics.some((m) => m.Name === metric)) continue;
      const names = (directive.Dimensions[0] ?? []).filter((name) => name !== 'service');
      found.push({ value: record[metric], dimensions: Object.fromEntries(names.map((name) => [name, String(record[name])])) });
    }
  }
  return found;
}

/** The values of `metric` keyed by one dimension, among those whose other dimensions match `filter`. */
export function emfByDimension(records: readonly Record<string, unknown>[], metric: string, key: string, filter: Record<string, string> = {}): Record<string, unknown> {
  return Object.fromEntries(
    emfValues(records, metric)
      .filter((v) => Object.entries(filter).every(([k, value]) => v.dimensions[k] === value))
      .map((v) => [v.dimensions[key], v.value]),
  );
}
