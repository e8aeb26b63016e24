import { Logger } from '@aws-lambda-powertools/logger';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { infoLine } from '../../../../lambdas/observability/info-line';
import { SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { stdoutDuring } from './stdout-capture';

/** What Powertools' Logger writes to stdout for one info() call, at a fixed clock. */
function powertoolsLine(service: string, now: Date, message: string, attributes: Record<string, unknown>): string {
  vi.useFakeTimers({ now, toFake: ['Date'] });
  try {
    const logger = new Logger({ serviceName: service });
    return stdoutDuring(() => logger.info(message, attributes)).text();
  } finally {
    vi.useRealTimers();
  }
}

const key = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
/** JSON data as the decision summaries hold it, with the values Powertools drops (undefined, null, '') mixed in. */
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), fc.constant(''), fc.constant(undefined)),
  node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 4 })),
})).node;
/** Caller keys, now and then one Powertools' formatter owns. */
const attributes = fc.dictionary(fc.oneof({ weight: 9, arbitrary: key }, { weight: 1, arbitrary: fc.constantFrom('level', 'message', 'service', 'xray_trace_id', 'cold_start', 'sampling_rate') }), value, { maxKeys: 8 });
const traceHeader = fc.option(fc.stringMatching(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/), { nil: undefined });

describe('infoLine', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('is the line Powertools writes for the same call, byte for byte, or leaves the call to Powertools', () => {
    let written = 0;
    fc.assert(
      fc.property(fc.constantFrom(...Object.values(SERVICE)), fc.string({ maxLength: 30 }), attributes, traceHeader, fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }), (service, message, attrs, traceId, now) => {
        vi.stubEnv('_X_AMZN_TRACE_ID', traceId === undefined ? '' : `Root=${traceId};Parent=53995c3f42cd8ad8;Sampled=1`);
        const line = infoLine(message, service, 0, now, traceId, attrs);
        if (line === undefined) return;
        written += 1;
        expect(`${line}\n`).toBe(powertoolsLine(service, now, message, attrs));
      }),
      { numRuns: 400 },
    );
    // Most generated calls are plain ones; the comparison must have run on them.
    expect(written).toBeGreaterThan(200);
  });

  it('leaves to Powertools a key its formatter owns, an Error or BigInt it formats, an empty message', () => {
    const now = new Date();
    expect(infoLine('m', SERVICE.extender, 0, now, undefined, { cold_start: true })).toBeUndefined();
    expect(infoLine('m', SERVICE.extender, 0, now, undefined, { message: 'x' })).toBeUndefined();
    expect(infoLine('m', SERVICE.extender, 0, now, undefined, { error: new Error('boom') })).toBeUndefined();
    expect(infoLine('m', SERVICE.extender, 0, now, undefined, { n: 1n })).toBeUndefined();
    expect(infoLine('', SERVICE.extender, 0, now, undefined, { a: 1 })).toBeUndefined();
  });
});
