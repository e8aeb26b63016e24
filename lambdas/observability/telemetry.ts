import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricDefinition, ServiceName } from './metric-catalog';
import { emitsDimensionValue, isOpenDimension, METRICS_NAMESPACE } from './metric-catalog';

/**
 * Powertools' Logger and Metrics for one Lambda, created once per container
 * (module scope), with metric names, units and dimensions taken from the
 * catalog so the dashboard can never drift from what is emitted.
 * instrument-handler.ts puts the Lambda context into every log line and
 * publishes the buffered metrics at the end of each invocation.
 */
export interface Telemetry {
  readonly logger: Logger;
  /** Undimensioned metrics, buffered until the invocation ends. */
  readonly metrics: Metrics;
  /**
   * Records a catalog metric; dimensions must be the ones the catalog
   * declares. A dimensioned metric is written at once, in its own EMF
   * document, so it never shares a dimension set with another.
   */
  record(metric: MetricDefinition, value: number, dimensions?: Readonly<Record<string, string>>): void;
  /**
   * Records catalog metrics that share one set of dimensions as one EMF
   * document, e.g. a request's count and latency by Verb: the same series as
   * one record() each, in one write.
   */
  recordTogether(values: readonly (readonly [MetricDefinition, number])[], dimensions: Readonly<Record<string, string>>): void;
}

export function createTelemetry(service: ServiceName): Telemetry {
  const logger = new Logger({ serviceName: service });
  // Metrics' own log: Powertools' answer to its per-invocation "No
  // application metrics to publish" warning (the extender and a skipped
  // labeler event publish none) is a logger of the caller's level. Its other
  // warnings (bad or repeated dimensions) cannot happen once the catalog
  // check below has passed.
  const metricsLog = logger.createChild({ logLevel: 'ERROR' });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger: metricsLog });
  // The writer of dimensioned documents: its dimensions and values are
  // published (and so cleared) by each record, never left for the next.
  const documents = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger: metricsLog });
  const publish = (values: readonly (readonly [MetricDefinition, number])[], dimensions: Readonly<Record<string, string>>): void => {
    try {
      for (const [name, value] of Object.entries(dimensions)) documents.addDimension(name, value);
      for (const [metric, value] of values) documents.addMetric(metric.name, metric.unit, value);
    } catch (error) {
      // A value Powertools refuses (not a number): write nothing of this record.
      documents.clearMetrics();
      documents.clearDimensions();
      throw error;
    }
    documents.publishStoredMetrics();
  };
  return {
    logger,
    metrics,
    record(metric, value, dimensions = {}) {
      assertCatalogDimensions(metric, dimensions);
      if (Object.keys(dimensions).length === 0) metrics.addMetric(metric.name, metric.unit, value);
      else publish([[metric, value]], dimensions);
    },
    recordTogether(values, dimensions) {
      for (const [metric] of values) assertCatalogDimensions(metric, dimensions);
      publish(values, dimensions);
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
    if (emitsDimensionValue(metric, name, value)) continue;
    const allowed = metric.dimensions[name] ?? [];
    throw new Error(`metric ${metric.name}: dimension ${name}=${value} is not ${isOpenDimension(allowed) ? allowed.bound : `one of [${allowed.join(', ')}]`}`);
  }
}
