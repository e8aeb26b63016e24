import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricDefinition, ServiceName } from './metric-catalog';
import { METRICS_NAMESPACE } from './metric-catalog';

/**
 * Logger and EMF metrics for one Lambda, created once per container (module
 * scope). Metric names, units and dimensions come from the catalog so the
 * dashboard can never drift from what is emitted.
 */
export interface Telemetry {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Records a catalog metric; dimensions must be the ones the catalog declares. */
  record(metric: MetricDefinition, value: number, dimensions?: Readonly<Record<string, string>>): void;
  /**
   * Records catalog metrics that share one set of dimensions as one EMF
   * document (one write), e.g. a request's count and latency by Verb: the
   * same metrics, each under the same dimensions, as one record() each.
   */
  recordTogether(values: readonly (readonly [MetricDefinition, number])[], dimensions: Readonly<Record<string, string>>): void;
  /** Publishes buffered metrics (once at the end of each invocation, see instrumentHandler); never throws. */
  flush(): void;
}

export function createTelemetry(service: ServiceName): Telemetry {
  const logger = new Logger({ serviceName: service });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger });
  // One buffered instance per set of dimension values, those dimensions set as
  // its defaults, so a record is addMetric and a publish: no dimensions added
  // and cleared each time, and no singleMetric(), which builds a whole Metrics
  // with its own Console per call (once half of the extender's per-request
  // cost). Catalog dimensions take a fixed list of values, so there are few
  // instances. Each publishes at once and keeps nothing between records, so
  // no metric shares a buffer with another set of dimensions or with the
  // invocation's undimensioned metrics.
  const byDimensions = new Map<string, Metrics>();
  const instanceFor = (dimensions: Readonly<Record<string, string>>): Metrics => {
    const key = dimensionsKey(dimensions);
    let instance = byDimensions.get(key);
    if (instance === undefined) {
      instance = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger, defaultDimensions: { ...dimensions } });
      byDimensions.set(key, instance);
    }
    return instance;
  };
  return {
    logger,
    metrics,
    record(metric, value, dimensions = {}) {
      assertCatalogDimensions(metric, dimensions);
      if (Object.keys(dimensions).length === 0) {
        metrics.addMetric(metric.name, metric.unit, value);
        return;
      }
      const instance = instanceFor(dimensions);
      instance.addMetric(metric.name, metric.unit, value);
      instance.publishStoredMetrics();
    },
    recordTogether(values, dimensions) {
      for (const [metric] of values) assertCatalogDimensions(metric, dimensions);
      const instance = instanceFor(dimensions);
      for (const [metric, value] of values) instance.addMetric(metric.name, metric.unit, value);
      instance.publishStoredMetrics();
    },
    flush() {
      // Dimensioned metrics were already written by their own instance;
      // publishing an empty buffer only logs a misleading warning.
      try {
        if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
      } catch (error) {
        // Metrics are best effort: never fail an invocation (or replace its
        // own error) over them.
        logger.warn('publishing metrics failed', { error });
      }
    },
  };
}

/** Names and values in their order (EMF lists dimensions in the order they were added); values are catalog codes, never "=" or ",". */
function dimensionsKey(dimensions: Readonly<Record<string, string>>): string {
  let key = '';
  for (const name in dimensions) key += `${name}=${dimensions[name] as string},`;
  return key;
}

function assertCatalogDimensions(metric: MetricDefinition, dimensions: Readonly<Record<string, string>>): void {
  const declared = Object.keys(metric.dimensions);
  const given = Object.keys(dimensions);
  if (declared.length !== given.length || declared.some((d) => !(d in dimensions))) {
    throw new Error(`metric ${metric.name} takes dimensions [${declared.join(', ')}], got [${given.join(', ')}]`);
  }
  for (const [name, value] of Object.entries(dimensions)) {
    const allowed = metric.dimensions[name] ?? [];
    if (!allowed.includes(value)) {
      throw new Error(`metric ${metric.name}: dimension ${name}=${value} is not one of [${allowed.join(', ')}]`);
    }
  }
}
