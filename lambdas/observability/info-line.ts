/**
 * The keys Powertools' formatter writes before the caller's
 * (PowertoolsLogFormatter.formatAttributes, 2.36) and the ones Logger
 * reserves: a caller key among them changes the line's key order or is
 * dropped with a warning, so infoLine leaves such a call to Powertools.
 */
const FORMATTER_KEYS = new Set([
  'level',
  'message',
  'timestamp',
  'service',
  'cold_start',
  'function_arn',
  'function_memory_size',
  'function_name',
  'function_request_id',
  'sampling_rate',
  'xray_trace_id',
  'tenant_id',
]);

/**
 * The INFO line Powertools' Logger writes for `logger.info(message,
 * attributes)` when nothing was appended to it and no Lambda context was
 * added: the formatter's keys (unset ones left out), then the caller's, with
 * `undefined`, `null` and `''` values dropped as Powertools does. Returns
 * undefined where Powertools would write something else (a key it owns, an
 * Error or BigInt value it formats, an empty message), so the caller logs
 * through Powertools instead. Attributes hold JSON data below the top level.
 * test/unit/lambdas/observability/info-line.test.ts holds it to Powertools'
 * own output.
 */
export function infoLine(
  message: string,
  service: string,
  samplingRate: number,
  timestamp: Date,
  xrayTraceId: string | undefined,
  attributes: Readonly<Record<string, unknown>>,
): string | undefined {
  if (message === '' || service === '') return undefined;
  const item: Record<string, unknown> = { level: 'INFO', message, timestamp: timestamp.toISOString(), service, sampling_rate: samplingRate };
  if (xrayTraceId !== undefined && xrayTraceId !== '') item.xray_trace_id = xrayTraceId;
  for (const key in attributes) {
    if (FORMATTER_KEYS.has(key)) return undefined;
    const value = attributes[key];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value === 'bigint' || value instanceof Error) return undefined;
    item[key] = value;
  }
  return JSON.stringify(item);
}
