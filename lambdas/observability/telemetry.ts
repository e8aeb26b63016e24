import { getBooleanFromEnv, getXRayTraceIdFromEnv, isDevMode } from '@aws-lambda-powertools/commons/utils/env';
import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { emfDocument } from './emf-document';
import { infoLine } from './info-line';
import type { MetricDefinition, ServiceName } from './metric-catalog';
import { METRICS_NAMESPACE } from './metric-catalog';
import { TelemetryLogger } from './telemetry-logger';

/**
 * Logger and EMF metrics for one Lambda, created once per container (module
 * scope). Metric names, units and dimensions come from the catalog so the
 * dashboard can never drift from what is emitted.
 */
export interface Telemetry {
  readonly logger: TelemetryLogger;
  /**
   * `logger.info(message, attributes)` for a per-request line (attributes
   * are JSON data): the same line, written without Powertools' per-call work
   * while the Logger is in its default configuration (info-line.ts), through
   * the Logger otherwise. The log level applies either way.
   */
  info(message: string, attributes: Readonly<Record<string, unknown>>): void;
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
  const logger = new TelemetryLogger({ serviceName: service });
  // Undimensioned metrics, buffered until flush; made on first use, since
  // the extender records none and a Metrics (its own Console) is init time.
  let buffered: Metrics | undefined;
  const bufferedMetrics = () => (buffered ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: service, logger }));
  // Settings under which Powertools' line differs from infoLine's: dev mode
  // (global console, indented), a sample rate (its value in every line),
  // a timezone other than UTC (local timestamps). Read once, as Powertools does.
  const { POWERTOOLS_LOGGER_SAMPLE_RATE: sampleRate = '', TZ: timezone = '' } = process.env;
  const plainLines = !isDevMode() && sampleRate === '' && (timezone === '' || timezone.includes('UTC'));
  // Dimensioned metrics are written at once, one EMF document per record
  // (emf-document.ts), so none shares a buffer with another set of dimensions
  // or with the invocation's undimensioned metrics.
  const documentsOff = metricsDisabled();
  const writeDocument = (values: readonly (readonly [MetricDefinition, number])[], dimensions: Readonly<Record<string, string>>) => {
    if (documentsOff) return;
    process.stdout.write(`${emfDocument(METRICS_NAMESPACE, service, dimensions, values, Date.now())}\n`);
  };
  return {
    logger,
    info(message, attributes) {
      if (logger.level > LogLevelThreshold.INFO) return;
      const line = plainLines && logger.onlyStandardKeys ? infoLine(message, service, 0, new Date(), getXRayTraceIdFromEnv(), attributes) : undefined;
      if (line === undefined) logger.info(message, attributes);
      else process.stdout.write(`${line}\n`);
    },
    record(metric, value, dimensions = {}) {
      assertCatalogDimensions(metric, dimensions);
      if (Object.keys(dimensions).length === 0) bufferedMetrics().addMetric(metric.name, metric.unit, value);
      else writeDocument([[metric, value]], dimensions);
    },
    recordTogether(values, dimensions) {
      for (const [metric] of values) assertCatalogDimensions(metric, dimensions);
      writeDocument(values, dimensions);
    },
    flush() {
      // Dimensioned metrics are already written; publishing an empty buffer
      // only logs a misleading warning.
      try {
        if (buffered?.hasStoredMetrics() === true) buffered.publishStoredMetrics();
      } catch (error) {
        // Metrics are best effort: never fail an invocation (or replace its
        // own error) over them.
        logger.warn('publishing metrics failed', { error });
      }
    },
  };
}

/**
 * Powertools' own rule (Metrics.setDisabled, 2.36), with its own env helpers:
 * POWERTOOLS_METRICS_DISABLED when set (an unparsable value throws, as the
 * Metrics constructor does), else off in POWERTOOLS_DEV.
 */
function metricsDisabled(): boolean {
  if (process.env.POWERTOOLS_METRICS_DISABLED !== undefined) {
    return getBooleanFromEnv({ key: 'POWERTOOLS_METRICS_DISABLED', defaultValue: false, extendedParsing: true });
  }
  return isDevMode();
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
