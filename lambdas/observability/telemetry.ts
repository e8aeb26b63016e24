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
  // One single-metric instance for every dimensioned record: singleMetric()
  // builds a whole Metrics (with its own Console) per call, which was half of
  // the extender's per-request cost. It publishes on addMetric and then clears
  // its dimensions, so reusing it leaks nothing between records.
  let single: Metrics | undefined;
  // A buffered instance of its own for recordTogether: its dimensions apply
  // to every metric it holds, so it is published at once and never shares a
  // buffer with the invocation's undimensioned metrics.
  let together: Metrics | undefined;
  return {
    logger,
    metrics,
    record(metric, value, dimensions = {}) {
      assertCatalogDimensions(metric, dimensions);
      if (Object.keys(dimensions).length === 0) {
        metrics.addMetric(metric.name, metric.unit, value);
        return;
      }
      // A dimensioned metric goes out on its own so its dimensions do not
      // leak onto the other metrics of the invocation.
      single ??= metrics.singleMetric();
      single.addDimensions({ ...dimensions });
      single.addMetric(metric.name, metric.unit, value);
    },
    recordTogether(values, dimensions) {
      for (const [metric] of values) assertCatalogDimensions(metric, dimensions);
      together ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger });
      together.addDimensions({ ...dimensions });
      for (const [metric, value] of values) together.addMetric(metric.name, metric.unit, value);
      together.publishStoredMetrics();
    },
    flush() {
      // Dimensioned metrics were already written by their single-metric
      // instance; publishing an empty buffer only logs a misleading warning.
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
