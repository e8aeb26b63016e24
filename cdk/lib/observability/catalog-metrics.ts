import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { MetricDefinition } from '../../../lambdas/observability/metric-catalog';
import { emitsDimensionValue, isOpenDimension, METRICS_NAMESPACE } from '../../../lambdas/observability/metric-catalog';

/** Every EMF document the Lambdas write puts the service name in this dimension, as Powertools Metrics does. */
export const SERVICE_DIMENSION = 'service';

export interface CatalogMetricOptions {
  readonly statistic: string;
  readonly period?: Duration;
  readonly label?: string;
}

/** Every combination of the catalog dimensions' values, e.g. [{Verb: filter}, {Verb: prioritize}, …]; a metric with an open dimension has none to list (catalogSearch reads it). */
export function dimensionCombinations(metric: MetricDefinition): Record<string, string>[] {
  let combinations: Record<string, string>[] = [{}];
  for (const [name, values] of Object.entries(metric.dimensions)) {
    if (isOpenDimension(values)) throw new Error(`${metric.name}: ${name} takes values no list holds (${values.bound}); read it with catalogSearch`);
    combinations = combinations.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  }
  return combinations;
}

/**
 * A SEARCH for every series of a catalog metric with an open dimension
 * (the top namespaces and `(other)`), one line each, labelled by the value:
 * the namespaces change, the expression does not.
 */
export function catalogSearch(metric: MetricDefinition, statistic: string, periodSeconds: number): string {
  const open = Object.entries(metric.dimensions).filter(([, values]) => isOpenDimension(values)).map(([name]) => name);
  if (open.length === 0) throw new Error(`${metric.name} has no open dimension: use catalogMetric`);
  const schema = [METRICS_NAMESPACE, SERVICE_DIMENSION, ...Object.keys(metric.dimensions)].join(',');
  return `SEARCH('{${schema}} MetricName="${metric.name}" ${SERVICE_DIMENSION}="${metric.service}"', '${statistic}', ${periodSeconds})`;
}

/** A CloudWatch metric exactly as the Lambda emits it: catalog namespace, name, `service` plus the given catalog dimensions. */
export function catalogMetric(metric: MetricDefinition, dimensions: Readonly<Record<string, string>>, options: CatalogMetricOptions): cloudwatch.Metric {
  const declared = Object.keys(metric.dimensions).sort();
  const given = Object.keys(dimensions).sort();
  if (declared.join() !== given.join()) {
    throw new Error(`${metric.name} is emitted with dimensions [${declared.join(', ')}], not [${given.join(', ')}]`);
  }
  for (const [name, value] of Object.entries(dimensions)) {
    if (!emitsDimensionValue(metric, name, value)) throw new Error(`${metric.name}: ${name}=${value} is never emitted`);
  }
  const suffix = Object.values(dimensions).join(' ');
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: metric.name,
    dimensionsMap: { [SERVICE_DIMENSION]: metric.service, ...dimensions },
    statistic: options.statistic,
    period: options.period ?? Duration.minutes(1),
    label: options.label ?? (suffix ? `${suffix} ${options.statistic}` : `${metric.name} ${options.statistic}`),
  });
}

/** One metric per dimension-value combination: a line per verb, reason or kind. */
export function catalogMetricsByDimension(metric: MetricDefinition, options: CatalogMetricOptions): cloudwatch.Metric[] {
  return dimensionCombinations(metric).map((dimensions) => catalogMetric(metric, dimensions, options));
}

/**
 * The sum over every dimension value of a metric, as math-expression parts
 * (`FILL(a, 0) + FILL(b, 0) …` and its metrics): a value with no datapoint
 * counts as 0. Ids are `prefix` + the values, lower-cased.
 */
export function catalogSumParts(metric: MetricDefinition, prefix: string, options: CatalogMetricOptions): { expression: string; usingMetrics: Record<string, cloudwatch.IMetric> } {
  const usingMetrics = Object.fromEntries(
    dimensionCombinations(metric).map((dimensions) => [`${prefix}${Object.values(dimensions).join('').toLowerCase()}`, catalogMetric(metric, dimensions, options)]),
  );
  return { expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '), usingMetrics };
}
