import { expect } from 'vitest';
import type { MetricDefinition } from '../../../../lambdas/observability/metric-catalog';
import { emitsDimensionValue, METRIC, METRICS_NAMESPACE } from '../../../../lambdas/observability/metric-catalog';
import { catalogSearch } from '../../../../cdk/lib/observability/catalog-metrics';
import type { ExpressionReference, MetricReference } from './referenced-metrics';

/** AWS namespaces whose metrics AWS itself publishes for resources in the stack. */
export const AWS_PUBLISHED_NAMESPACES = ['AWS/ApplicationELB', 'AWS/CertificateManager', 'AWS/Lambda', 'AWS/SQS'];

const CATALOG: readonly MetricDefinition[] = Object.values(METRIC);

/** Why a reference is not something a Lambda emits; undefined when it is. */
export function catalogMismatch(reference: MetricReference): string | undefined {
  if (reference.namespace !== METRICS_NAMESPACE) {
    return AWS_PUBLISHED_NAMESPACES.includes(reference.namespace) ? undefined : `namespace ${reference.namespace} is neither ours nor AWS-published`;
  }
  const definition = CATALOG.find((metric) => metric.name === reference.metricName);
  if (!definition) return `${reference.metricName} is not in the metric catalog`;
  const expected = ['service', ...Object.keys(definition.dimensions)].sort();
  const actual = Object.keys(reference.dimensions).sort();
  if (expected.join() !== actual.join()) return `${reference.metricName} has dimensions [${actual.join(', ')}], the Lambda emits [${expected.join(', ')}]`;
  if (reference.dimensions.service !== definition.service) return `${reference.metricName} has service=${reference.dimensions.service}, emitted by ${definition.service}`;
  for (const name of Object.keys(definition.dimensions)) {
    const value = reference.dimensions[name] ?? '';
    if (!emitsDimensionValue(definition, name, value)) return `${reference.metricName} ${name}=${value} is never emitted`;
  }
  return undefined;
}

export function expectOnlyEmittedMetrics(metrics: readonly MetricReference[]): void {
  const problems = metrics.flatMap((reference) => {
    const problem = catalogMismatch(reference);
    return problem === undefined ? [] : [`${reference.where}: ${problem}`];
  });
  expect(problems).toEqual([]);
}

/** The SEARCH of each catalog metric with an open dimension, whatever its statistic and period. */
function isCatalogSearch(expression: string): boolean {
  return CATALOG.some((metric) => {
    if (!Object.values(metric.dimensions).some((values) => !Array.isArray(values))) return false;
    const prefix = catalogSearch(metric, 'X', 0).split(", 'X'")[0] ?? '';
    return expression.startsWith(`${prefix}, '`);
  });
}

/** SEARCH expressions may only read Container Insights' per-node GPU utilization, or a catalog metric with an open dimension (catalogSearch). */
export function expectOnlyKnownSearches(expressions: readonly ExpressionReference[], clusterName: string): void {
  for (const { expression, where } of expressions.filter((e) => e.expression.includes('SEARCH('))) {
    if (isCatalogSearch(expression)) continue;
    expect(expression, where).toBe(
      `SEARCH('{ContainerInsights,ClusterName,InstanceId,NodeName} MetricName="node_gpu_utilization" ClusterName="${clusterName}"', 'Average', 300)`,
    );
  }
}
