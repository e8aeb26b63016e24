import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogLevel } from '../../../../lambdas/observability/json-logger';
import { createJsonLogger, logLevelOf } from '../../../../lambdas/observability/json-logger';

const AT = new Date('2026-12-01T09:25:30.123Z');

function captured(env: Record<string, string> = {}) {
  const lines: [LogLevel, Record<string, unknown>][] = [];
  const logger = createJsonLogger('gpu-extender', { env, now: () => AT, write: (level, line) => lines.push([level, JSON.parse(line) as Record<string, unknown>]) });
  return { logger, lines };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createJsonLogger', () => {
  it('writes Powertools’ layout: level, message, timestamp, service, sampling_rate, then the line’s own keys', () => {
    const { logger, lines } = captured();
    logger.info('extender decision', { verb: 'filter', kept: 2, reasons: { GpuModelMismatch: 3 }, big: 10n });
    expect(lines).toHaveLength(1);
    const [level, line] = lines[0]!;
    expect(level).toBe('INFO');
    expect(Object.keys(line)).toEqual(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'verb', 'kept', 'reasons', 'big']);
    expect(line).toEqual({
      level: 'INFO',
      message: 'extender decision',
      timestamp: '2026-12-01T09:25:30.123Z',
      service: 'gpu-extender',
      sampling_rate: 0,
      verb: 'filter',
      kept: 2,
      reasons: { GpuModelMismatch: 3 },
      big: '10',
    });
  });

  it('names the X-Ray trace of the invocation, and drops a key that would overwrite a standard one', () => {
    const { logger, lines } = captured({ _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1' });
    logger.warn('w', { level: 'DEBUG', service: 'other', detail: 1 });
    expect(lines[0]![1]).toMatchObject({ level: 'WARN', service: 'gpu-extender', xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793', detail: 1 });
  });

  it('formats an error with its location, stack, own properties and cause, and cuts a value that contains itself', () => {
    const { logger, lines } = captured();
    const error = Object.assign(new Error('list failed', { cause: new Error('ECONNRESET') }), { status: 503 });
    error.stack = 'Error: list failed\n    at load (/var/task/index.mjs:12:34)\n    at run (/var/task/index.mjs:56:7)';
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    logger.error('refresh failed', { error, loop });
    const line = lines[0]![1];
    expect(line.error).toMatchObject({ name: 'Error', message: 'list failed', status: 503, cause: { name: 'Error', message: 'ECONNRESET' } });
    expect(line.error).toMatchObject({ location: '/var/task/index.mjs:12', stack: error.stack });
    expect(line.loop).toEqual({ a: 1 });
  });

  it('drops lines below the level, and says so before a line is built', () => {
    const { logger, lines } = captured({ POWERTOOLS_LOG_LEVEL: 'warn' });
    expect(logger.enabled('INFO')).toBe(false);
    expect(logger.enabled('WARN')).toBe(true);
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(lines.map(([level]) => level)).toEqual(['WARN', 'ERROR']);
  });

  it('takes the level from Lambda’s logging configuration first, then POWERTOOLS_LOG_LEVEL, then LOG_LEVEL, else INFO', () => {
    expect(logLevelOf({})).toBe('INFO');
    expect(logLevelOf({ LOG_LEVEL: 'debug' })).toBe('DEBUG');
    expect(logLevelOf({ POWERTOOLS_LOG_LEVEL: 'SILENT', LOG_LEVEL: 'debug' })).toBe('SILENT');
    expect(logLevelOf({ AWS_LAMBDA_LOG_LEVEL: 'FATAL', POWERTOOLS_LOG_LEVEL: 'DEBUG' })).toBe('CRITICAL');
    expect(logLevelOf({ POWERTOOLS_LOG_LEVEL: 'loud' })).toBe('INFO');
  });

  it('writes INFO to stdout and warnings and errors to stderr, one line each', () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0);
    const logger = createJsonLogger('gpu-node-labeler', { env: {} });
    logger.info('a');
    logger.warn('b');
    logger.error('c');
    expect(out.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['a']);
    expect(err.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(['b', 'c']);
    expect([...out, ...err].every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
  });

  it('in POWERTOOLS_DEV writes indented JSON through the global console', () => {
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    createJsonLogger('gpu-metrics-reconciler', { env: { POWERTOOLS_DEV: 'true' } }).info('a', { n: 1 });
    expect(info).toHaveBeenCalledTimes(1);
    const text = String(info.mock.calls[0]![0]);
    expect(text).toContain('\n    "message": "a"');
    expect(JSON.parse(text)).toMatchObject({ message: 'a', n: 1 });
  });
});
