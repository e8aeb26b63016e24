import { Logger } from '@aws-lambda-powertools/logger';
import type { MetricRecord } from './emf-documents';
import { emfDocuments } from './emf-documents';
import type { MetricDefinition, ServiceName } from './metric-catalog';
import { METRICS_NAMESPACE } from './metric-catalog';

/**
 * Logger and EMF metrics for one Lambda, created once per container (module
 * scope). Metric names, units and dimensions come from the catalog so the
 * dashboard can never drift from what is emitted.
 */
export interface Telemetry {
  readonly logger: Logger;
  /** Records a catalog metric; dimensions must be the ones the catalog declares. */
  record(metric: MetricDefinition, value: number, dimensions?: Readonly<Record<string, string>>): void;
  /** Publishes buffered metrics (once at the end of each invocation, see instrumentHandler); never throws. */
  flush(): void;
}

export interface TelemetryOptions {
  /** Where each EMF document goes, one line each. @default process.stdout, where Lambda's log capture reads it */
  readonly write?: (line: string) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * EMF documents are written here rather than through Powertools Metrics:
 * Powertools publishes a dimensioned metric as a document of its own
 * (`singleMetric`), and re-reads its configuration on every publish, which
 * was most of the extender's per-request observability cost (five documents
 * per filter + prioritize). emfDocuments packs an invocation into one
 * document wherever the format allows, with the same names, units and
 * dimensions.
 */
export function createTelemetry(service: ServiceName, options: TelemetryOptions = {}): Telemetry {
  const logger = new Logger({ serviceName: service });
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const now = options.now ?? Date.now;
  let buffered: MetricRecord[] = [];
  return {
    logger,
    record(metric, value, dimensions = {}) {
      assertCatalogDimensions(metric, dimensions);
      buffered.push({ name: metric.name, unit: metric.unit, value, dimensions: inCatalogOrder(metric, dimensions) });
    },
    flush() {
      if (buffered.length === 0) return;
      const records = buffered;
      buffered = [];
      try {
        for (const document of emfDocuments(METRICS_NAMESPACE, service, records, now())) write(JSON.stringify(document));
      } catch (error) {
        // Metrics are best effort: never fail an invocation (or replace its
        // own error) over them.
        logger.warn('publishing metrics failed', { error });
      }
    },
  };
}

/** The dimension set CloudWatch keys a metric by is an ordered list: keep the catalog's order whatever the caller's. */
function inCatalogOrder(metric: MetricDefinition, dimensions: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const names = Object.keys(metric.dimensions);
  if (names.length < 2) return dimensions;
  return Object.fromEntries(names.map((name) => [name, dimensions[name] as string]));
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
