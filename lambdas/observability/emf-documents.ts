import type { MetricUnit } from './metric-catalog';

/** One recorded value: a catalog metric with the values of its catalog dimensions (beyond `service`, in catalog order). */
export interface MetricRecord {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** CloudWatch takes at most 100 metrics per directive; counting per document keeps every directive under it. */
const MAX_METRICS_PER_DOCUMENT = 100;

interface Directive {
  readonly Namespace: string;
  readonly Dimensions: [string[]];
  readonly Metrics: { Name: string; Unit: MetricUnit }[];
}

interface Document {
  /** Dimension values and metric values: EMF reads both from the document's top level. */
  readonly fields: Record<string, string | number>;
  /** One directive per dimension set, keyed by its names. */
  readonly directives: Map<string, Directive>;
  count: number;
}

/**
 * Packs an invocation's records into as few Embedded Metric Format documents
 * as the format allows. A document may carry several directives, each with
 * its own dimension set, but its top level holds one value per key: a record
 * joins the first document that has no value yet for its metric and agrees
 * on every dimension it names. So the extender's filter (requests and latency
 * by Verb, rejections by Reason) is one line, and only a second Reason (or a
 * second value of one metric) opens another. Each metric keeps exactly the
 * namespace, name, unit and dimensions (`service` first, then the catalog's,
 * in order) it had as a document of its own.
 */
export function emfDocuments(namespace: string, service: string, records: readonly MetricRecord[], timestamp: number): Record<string, unknown>[] {
  const documents: Document[] = [];
  for (const record of records) {
    const names = Object.keys(record.dimensions);
    let document = documents.find((d) => fits(d, record, names));
    if (document === undefined) {
      document = { fields: {}, directives: new Map(), count: 0 };
      documents.push(document);
    }
    for (const name of names) document.fields[name] = record.dimensions[name] as string;
    document.fields[record.name] = record.value;
    document.count++;
    const key = names.join('\u0000');
    let directive = document.directives.get(key);
    if (directive === undefined) {
      directive = { Namespace: namespace, Dimensions: [['service', ...names]], Metrics: [] };
      document.directives.set(key, directive);
    }
    directive.Metrics.push({ Name: record.name, Unit: record.unit });
  }
  return documents.map((d) => ({
    _aws: { Timestamp: timestamp, CloudWatchMetrics: [...d.directives.values()] },
    service,
    ...d.fields,
  }));
}

function fits(document: Document, record: MetricRecord, names: readonly string[]): boolean {
  if (document.count >= MAX_METRICS_PER_DOCUMENT || record.name in document.fields) return false;
  return names.every((name) => {
    const value = document.fields[name];
    return value === undefined || value === record.dimensions[name];
  });
}
