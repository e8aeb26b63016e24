import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { instrumentHandler, withLambdaContext } from '../../../../lambdas/observability/instrument-handler';
import { METRIC, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import { expectInvocationContext, invocationContext, logLines, onDemandContainer } from './lambda-invocation';
import type { StdoutCapture } from './stdout-capture';
import { captureStdout } from './stdout-capture';

let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  vi.unstubAllEnvs();
});

const emf = (records: readonly Record<string, unknown>[]) => records.filter((r) => '_aws' in r);

describe('instrumentHandler', () => {
  it('puts the invocation context into every log line, cold_start only on the first invocation', async () => {
    onDemandContainer();
    const telemetry = createTelemetry(SERVICE.labeler);
    const handler = instrumentHandler(telemetry, async (event: { n: number }) => {
      telemetry.logger.info('working', { n: event.n });
      telemetry.logger.error('and complaining');
      return event.n * 2;
    });
    const first = invocationContext('gpu-node-labeler', 'req-1');
    const second = invocationContext('gpu-node-labeler', 'req-2');
    capture = captureStdout();
    expect(await handler({ n: 1 }, first)).toBe(2);
    const firstLines = logLines(capture.records());
    expect(firstLines.map((l) => l.message)).toEqual(['working', 'and complaining']);
    expectInvocationContext(firstLines, first, true);
    capture.restore();
    capture = captureStdout();
    expect(await handler({ n: 2 }, second)).toBe(4);
    expectInvocationContext(logLines(capture.records()), second, false);
  });

  it('publishes the buffered metrics when the invocation returns, and when it throws', async () => {
    onDemandContainer();
    const telemetry = createTelemetry(SERVICE.labeler);
    const handler = instrumentHandler(telemetry, async (fail: boolean) => {
      telemetry.record(METRIC.nodesLabeled, 1);
      if (fail) throw new Error('boom');
      return 'ok';
    });
    capture = captureStdout();
    await handler(false, invocationContext('gpu-node-labeler', 'req-1'));
    await expect(handler(true, invocationContext('gpu-node-labeler', 'req-2'))).rejects.toThrow('boom');
    const documents = emf(capture.records());
    expect(documents).toHaveLength(2);
    expect(documents.map((d) => d.NodesLabeled)).toEqual([1, 1]);
    // Nothing is left in the buffer for the next invocation.
    expect(telemetry.metrics.hasStoredMetrics()).toBe(false);
  });

  it('an invocation that records nothing writes nothing: no empty document, no warning about it', async () => {
    onDemandContainer();
    const telemetry = createTelemetry(SERVICE.extender);
    const handler = instrumentHandler(telemetry, async () => 'quiet');
    capture = captureStdout();
    await handler(undefined, invocationContext('gpu-extender', 'req-1'));
    expect(capture.lines()).toEqual([]);
  });
});

describe('withLambdaContext', () => {
  it('puts the invocation context into the lines of a Logger of its own', async () => {
    onDemandContainer();
    const logger = new Logger({ serviceName: 'gpu-instance-types' });
    const handler = withLambdaContext(logger, async () => logger.info('checked'));
    const context = invocationContext('gpu-instance-types', 'req-9');
    capture = captureStdout();
    await handler(undefined, context);
    expectInvocationContext(logLines(capture.records()), context, true);
  });
});
