import type { Env } from '../env';

/**
 * The structured JSON log lines of the three Lambdas, in the layout
 * Powertools Logger writes (level, message, timestamp, service,
 * sampling_rate, xray_trace_id, then the line's own keys; an Error as name,
 * location, message, stack and cause), configured by the same variables.
 * It replaced Powertools Logger, whose import and construction were about
 * half of the extender's cold-start init (docs/benchmarks.md, "Extender
 * bundle and init"), and which re-merged and re-serialised every line
 * through a replacer function. Only what the Lambdas use is here: no
 * sampling, persistent keys, buffering or Lambda context, and timestamps are
 * always UTC (Lambda's TZ; Powertools writes a local offset for another TZ).
 */
export interface JsonLogger {
  /** Whether a line of this level is written: callers skip building a line the level drops. */
  enabled(level: LogLevel): boolean;
  debug(message: string, extra?: LogExtra): void;
  info(message: string, extra?: LogExtra): void;
  warn(message: string, extra?: LogExtra): void;
  error(message: string, extra?: LogExtra): void;
}

export type LogExtra = Readonly<Record<string, unknown>>;

const LEVELS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
export type LogLevel = keyof typeof LEVELS;

/** Keys of every line; a line's own key of the same name is dropped, as Powertools does. */
const RESERVED = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'xray_trace_id']);

export interface JsonLoggerOptions {
  readonly env?: Env;
  /** @default process.stdout for DEBUG and INFO, process.stderr above, as Powertools' console writes them */
  readonly write?: (level: LogLevel, line: string) => void;
  readonly now?: () => Date;
}

export function createJsonLogger(service: string, options: JsonLoggerOptions = {}): JsonLogger {
  const env = options.env ?? process.env;
  const threshold = LEVELS[logLevelOf(env)];
  const dev = isTruthy(env.POWERTOOLS_DEV);
  const write = options.write ?? (dev ? writeToConsole : writeToStreams);
  const now = options.now ?? (() => new Date());
  const indentation = dev ? 4 : 0;
  const line = (level: LogLevel, message: string, extra: LogExtra | undefined): void => {
    if (LEVELS[level] < threshold) return;
    const record: Record<string, unknown> = { level, message, timestamp: now().toISOString(), service, sampling_rate: 0 };
    const traceId = xrayTraceId(env._X_AMZN_TRACE_ID);
    if (traceId !== undefined) record.xray_trace_id = traceId;
    if (extra !== undefined) for (const key of Object.keys(extra)) if (!RESERVED.has(key)) record[key] = extra[key];
    write(level, JSON.stringify(record, replacer(), indentation));
  };
  return {
    enabled: (level) => LEVELS[level] >= threshold,
    debug: (message, extra) => line('DEBUG', message, extra),
    info: (message, extra) => line('INFO', message, extra),
    warn: (message, extra) => line('WARN', message, extra),
    error: (message, extra) => line('ERROR', message, extra),
  };
}

/** Lambda's advanced logging level when set, then POWERTOOLS_LOG_LEVEL, then LOG_LEVEL, then INFO (Powertools' order). */
export function logLevelOf(env: Env): LogLevel {
  const lambda = env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase();
  const alc = lambda === 'FATAL' ? 'CRITICAL' : lambda;
  if (isLevel(alc)) return alc;
  const configured = (env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL)?.toUpperCase();
  return isLevel(configured) ? configured : 'INFO';
}

function isLevel(value: string | undefined): value is LogLevel {
  return value !== undefined && Object.hasOwn(LEVELS, value);
}

const TRUTHY = new Set(['1', 'y', 'yes', 't', 'true', 'on']);
export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && TRUTHY.has(value.toLowerCase());
}

function writeToStreams(level: LogLevel, line: string): void {
  (LEVELS[level] <= LEVELS.INFO ? process.stdout : process.stderr).write(`${line}\n`);
}

/** POWERTOOLS_DEV: through the global console, where a test runner shows (and can capture) it. */
function writeToConsole(level: LogLevel, line: string): void {
  if (level === 'DEBUG' || level === 'TRACE') console.debug(line);
  else if (level === 'INFO') console.info(line);
  else if (level === 'WARN') console.warn(line);
  else console.error(line);
}

/** The Root of `Root=1-…;Parent=…;Sampled=1`. */
function xrayTraceId(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  for (const part of header.split(';')) {
    const [key, value] = part.split('=');
    if (key?.trim() === 'Root') return value;
  }
  return undefined;
}

/** Errors as Powertools formats them, bigints as strings, and a value that contains itself cut where it recurs. */
function replacer(): (this: unknown, key: string, value: unknown) => unknown {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return value.toString();
    const replaced = value instanceof Error ? formatError(value) : value;
    if (typeof replaced === 'object' && replaced !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(replaced)) return undefined;
      ancestors.push(replaced);
    }
    return replaced;
  };
}

export function formatError(error: Error): Record<string, unknown> {
  const { name, message, stack, cause } = error;
  const formatted: Record<string, unknown> = {
    name,
    location: codeLocation(stack),
    message,
    stack,
    cause: cause instanceof Error ? formatError(cause) : cause,
  };
  for (const key of Object.keys(error)) {
    if (!['name', 'message', 'stack', 'cause'].includes(key)) formatted[key] = (error as unknown as Record<string, unknown>)[key];
  }
  return formatted;
}

/** `file:line` of the first stack frame with a location, '' when none. */
function codeLocation(stack: string | undefined): string {
  if (stack === undefined) return '';
  for (const frame of stack.split('\n')) {
    const match = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(frame);
    if (match !== null) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}
