import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { StdoutCapture } from './stdout-capture';
import { captureStdout, stdoutDuring } from './stdout-capture';

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

function emfLines(lines: string[]): EmfLine[] {
  return lines
    .map((l) => {
      try {
        return JSON.parse(l) as EmfLine;
      } catch {
        return undefined;
      }
    })
    .filter((l): l is EmfLine => l !== undefined && typeof l === 'object' && '_aws' in l);
}

// Each test's stdout capture and environment, undone after it.
let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  vi.unstubAllEnvs();
});

describe('createTelemetry', () => {

  it('emits a dimensioned catalog metric with the service and catalog dimensions', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.extenderLatency, 12, { Verb: 'filter' });
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(1);
    const line = emf[0]!;
    const directive = line._aws.CloudWatchMetrics[0]!;
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Metrics).toEqual([{ Name: 'ExtenderLatency', Unit: 'Milliseconds' }]);
    expect(new Set(directive.Dimensions[0])).toEqual(new Set(['service', 'Verb']));
    expect(line.service).toBe(SERVICE.extender);
    expect(line.Verb).toBe('filter');
    expect(line.ExtenderLatency).toBe(12);
  });

  it('gives each dimensioned record only its own dimensions, record after record', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.extenderLatency, 12, { Verb: 'filter' });
    telemetry.record(METRIC.nodesRejected, 3, { Reason: 'InsufficientGpus' });
    telemetry.record(METRIC.extenderLatency, 7, { Verb: 'prioritize' });
    const emf = emfLines(capture.lines());
    expect(emf.map((l) => new Set(l._aws.CloudWatchMetrics[0]!.Dimensions[0]))).toEqual([
      new Set(['service', 'Verb']),
      new Set(['service', 'Reason']),
      new Set(['service', 'Verb']),
    ]);
    expect(emf.map((l) => [l.Verb, l.Reason, l.ExtenderLatency ?? l.NodesRejected])).toEqual([
      ['filter', undefined, 12],
      [undefined, 'InsufficientGpus', 3],
      ['prioritize', undefined, 7],
    ]);
    expect(emf.every((l) => l.service === SERVICE.extender)).toBe(true);
  });

  it('records metrics that share dimensions as one document, each under exactly those dimensions', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.nodesRejected, 2, { Reason: 'InsufficientGpus' });
    telemetry.recordTogether(
      [
        [METRIC.extenderRequests, 1],
        [METRIC.extenderLatency, 4.5],
      ],
      { Verb: 'filter' },
    );
    telemetry.recordTogether([[METRIC.extenderRequests, 1]], { Verb: 'prioritize' });
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(3);
    const [rejected, together, next] = emf as [EmfLine, EmfLine, EmfLine];
    const directive = together._aws.CloudWatchMetrics[0]!;
    expect(together._aws.CloudWatchMetrics).toHaveLength(1);
    expect(directive.Namespace).toBe(METRICS_NAMESPACE);
    expect(directive.Dimensions).toEqual([['service', 'Verb']]);
    expect(directive.Metrics).toEqual([
      { Name: 'ExtenderRequests', Unit: 'Count' },
      { Name: 'ExtenderLatency', Unit: 'Milliseconds' },
    ]);
    expect(together).toMatchObject({ service: SERVICE.extender, Verb: 'filter', ExtenderRequests: 1, ExtenderLatency: 4.5 });
    expect(together.Reason).toBeUndefined();
    // Nothing carries over to the next document, nor from the one before.
    expect(rejected.Verb).toBeUndefined();
    expect(next._aws.CloudWatchMetrics[0]!.Metrics).toEqual([{ Name: 'ExtenderRequests', Unit: 'Count' }]);
    expect(next).toMatchObject({ Verb: 'prioritize', ExtenderRequests: 1 });
    expect(next.ExtenderLatency).toBeUndefined();
  });

  it('writes a document per record when the same dimensions come again, each with its own value, dimensions in catalog order', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.reconciler);
    telemetry.record(METRIC.gpusByModel, 8, { GpuModel: 'H100', State: 'Allocated' });
    telemetry.record(METRIC.gpusByModel, 3, { GpuModel: 'H100', State: 'Allocated' });
    telemetry.record(METRIC.gpusByModel, 5, { GpuModel: 'A100', State: 'Allocated' });
    telemetry.record(METRIC.gpusByModel, 2, { GpuModel: 'H100', State: 'Idle' });
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf.map((l) => l._aws.CloudWatchMetrics[0]!.Dimensions)).toEqual(Array.from({ length: 4 }, () => [['service', 'GpuModel', 'State']]));
    expect(emf.map((l) => [l.GpuModel, l.State, l.GpusByModel])).toEqual([
      ['H100', 'Allocated', 8],
      ['H100', 'Allocated', 3],
      ['A100', 'Allocated', 5],
      ['H100', 'Idle', 2],
    ]);
  });

  it('recordTogether refuses a metric whose catalog dimensions differ from the shared ones', () => {
    const telemetry = createTelemetry(SERVICE.extender);
    expect(() =>
      telemetry.recordTogether(
        [
          [METRIC.extenderRequests, 1],
          [METRIC.nodesRejected, 1],
        ],
        { Verb: 'filter' },
      ),
    ).toThrow(/NodesRejected takes dimensions \[Reason\]/);
  });

  it('buffers undimensioned metrics until flush and flushes nothing when empty', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.labeler);
    telemetry.flush();
    expect(capture.lines()).toEqual([]);
    telemetry.record(METRIC.nodesLabeled, 3);
    expect(emfLines(capture.lines())).toHaveLength(0);
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(1);
    expect(emf[0]!.NodesLabeled).toBe(3);
  });

  it('refuses dimensions the catalog does not declare', () => {
    const telemetry = createTelemetry(SERVICE.extender);
    expect(() => telemetry.record(METRIC.extenderLatency, 1)).toThrow(/takes dimensions \[Verb\]/);
    expect(() => telemetry.record(METRIC.extenderLatency, 1, { Verb: 'bind' })).toThrow(/Verb=bind is not one of/);
    expect(() => telemetry.record(METRIC.nodesLabeled, 1, { Verb: 'filter' })).toThrow(/takes dimensions \[\]/);
  });

  it('writes dimensioned documents exactly when Powertools Metrics would write them', () => {
    const disabledValues = [undefined, 'true', 'false', '1', '0', 'yes', 'no', 'on', 'off'];
    const devValues = [undefined, 'true', 'false'];
    const written: string[] = [];
    for (const disabled of disabledValues) {
      for (const dev of devValues) {
        vi.unstubAllEnvs();
        if (disabled !== undefined) vi.stubEnv('POWERTOOLS_METRICS_DISABLED', disabled);
        if (dev !== undefined) vi.stubEnv('POWERTOOLS_DEV', dev);
        const own = captureStdout();
        // Dev mode sends Powertools' output to the global console rather than stdout.
        const consoleLog = vi.spyOn(console, 'log').mockImplementation((line: string) => void process.stdout.write(`${line}\n`));
        try {
          const powertools = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE.extender, defaultDimensions: { Reason: 'InsufficientGpus' } });
          powertools.addMetric(METRIC.nodesRejected.name, METRIC.nodesRejected.unit, 2);
          powertools.publishStoredMetrics();
          const byPowertools = emfLines(own.lines()).length;
          createTelemetry(SERVICE.extender).record(METRIC.nodesRejected, 2, { Reason: 'InsufficientGpus' });
          const byTelemetry = emfLines(own.lines()).length - byPowertools;
          expect([disabled, dev, byTelemetry]).toEqual([disabled, dev, byPowertools]);
          if (byTelemetry > 0) written.push(`${disabled}/${dev}`);
        } finally {
          consoleLog.mockRestore();
          own.restore();
        }
      }
    }
    // Both outcomes occur among these settings.
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(disabledValues.length * devValues.length);
  });
});

describe('Telemetry.info', () => {
  const decision = { verb: 'filter', durationMs: 0.42, pod: 'team/train-0', candidates: 3, kept: 1, reasons: { InsufficientGpus: 2 }, topReasons: ['Insufficient nvidia.com/gpu (2 nodes)'] };

  /** The line Powertools' own Logger writes for the same call, parsed, without its timestamp. */
  function powertoolsLine(configure: (logger: Logger) => void = () => undefined): Record<string, unknown> {
    const own = stdoutDuring(() => {
      const logger = new Logger({ serviceName: SERVICE.extender });
      configure(logger);
      logger.info('extender decision', decision);
    });
    return withoutTimestamp(own.lines());
  }

  /** The decision line among those written (a sampled Logger first logs that it switched to DEBUG), without its timestamp. */
  function withoutTimestamp(lines: string[]): Record<string, unknown> {
    const decisions = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.message === 'extender decision');
    expect(decisions).toHaveLength(1);
    const { timestamp, ...rest } = decisions[0]!;
    expect(typeof timestamp).toBe('string');
    return rest;
  }

  it('writes the line Logger.info writes, with the X-Ray trace id of the invocation', () => {
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    const expected = powertoolsLine();
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    // The default configuration is the one the hot path writes itself.
    const viaLogger = vi.spyOn(telemetry.logger, 'info');
    telemetry.info('extender decision', decision);
    expect(viaLogger).not.toHaveBeenCalled();
    const line = withoutTimestamp(capture.lines());
    expect(line).toEqual(expected);
    expect(line).toMatchObject({ level: 'INFO', service: SERVICE.extender, xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793', pod: 'team/train-0' });
  });

  it('keeps the keys appended to the Logger and its Lambda context', () => {
    const context = { functionName: 'gpu-extender', functionVersion: '$LATEST', invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:gpu-extender', memoryLimitInMB: '1024', awsRequestId: 'req-1' };
    const configure = (logger: Logger) => {
      logger.appendKeys({ cluster: 'gpu-prod' });
      logger.addContext(context as unknown as Parameters<Logger['addContext']>[0]);
    };
    const expected = powertoolsLine(configure);
    const telemetry = createTelemetry(SERVICE.extender);
    configure(telemetry.logger);
    const viaLogger = vi.spyOn(telemetry.logger, 'info');
    capture = captureStdout();
    telemetry.info('extender decision', decision);
    expect(viaLogger).toHaveBeenCalledOnce();
    const line = withoutTimestamp(capture.lines());
    expect(line).toEqual(expected);
    expect(line).toMatchObject({ cluster: 'gpu-prod', function_request_id: 'req-1' });
  });

  it('follows the log level, as Logger.info does', () => {
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'WARN');
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.info('extender decision', decision);
    expect(capture.lines()).toEqual([]);
    telemetry.logger.setLogLevel('INFO');
    telemetry.info('extender decision', decision);
    expect(capture.lines()).toHaveLength(1);
  });

  it('writes the sample rate and a local timestamp where they are configured, as Logger.info does', () => {
    vi.stubEnv('POWERTOOLS_LOGGER_SAMPLE_RATE', '0.25');
    vi.stubEnv('TZ', 'Asia/Kolkata');
    const expected = powertoolsLine();
    capture = captureStdout();
    createTelemetry(SERVICE.extender).info('extender decision', decision);
    const lines = capture.lines();
    expect(withoutTimestamp(lines)).toEqual(expected);
    expect(expected.sampling_rate).toBe(0.25);
    expect(lines.map((l) => (JSON.parse(l) as { timestamp: string }).timestamp)).toEqual(lines.map(() => expect.stringMatching(/\+05:30$/)));
  });
});
