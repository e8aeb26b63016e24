import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { StdoutCapture } from './stdout-capture';
import { captureStdout } from './stdout-capture';

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

  it('buffers undimensioned metrics in Powertools Metrics until it publishes them', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.labeler);
    telemetry.record(METRIC.nodesLabeled, 3);
    telemetry.record(METRIC.timeToLabel, 1200);
    expect(emfLines(capture.lines())).toHaveLength(0);
    telemetry.metrics.publishStoredMetrics();
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(1);
    expect(emf[0]!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: METRICS_NAMESPACE,
        Dimensions: [['service']],
        Metrics: [
          { Name: 'NodesLabeled', Unit: 'Count' },
          { Name: 'TimeToLabel', Unit: 'Milliseconds' },
        ],
      },
    ]);
    expect(emf[0]).toMatchObject({ service: SERVICE.labeler, NodesLabeled: 3, TimeToLabel: 1200 });
  });

  it('publishing an empty buffer writes nothing, not even Powertools warning about it', () => {
    capture = captureStdout();
    createTelemetry(SERVICE.extender).metrics.publishStoredMetrics();
    expect(capture.lines()).toEqual([]);
  });

  it('a value Powertools refuses leaves nothing behind for the next document', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    expect(() => telemetry.record(METRIC.nodesRejected, '2' as unknown as number, { Reason: 'InsufficientGpus' })).toThrow(/not a valid number/);
    telemetry.record(METRIC.extenderLatency, 3, { Verb: 'filter' });
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(1);
    expect(emf[0]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'Verb']]);
    expect(emf[0]!.Reason).toBeUndefined();
  });

  it('refuses dimensions the catalog does not declare', () => {
    const telemetry = createTelemetry(SERVICE.extender);
    expect(() => telemetry.record(METRIC.extenderLatency, 1)).toThrow(/takes dimensions \[Verb\]/);
    expect(() => telemetry.record(METRIC.extenderLatency, 1, { Verb: 'bind' })).toThrow(/Verb=bind is not one of/);
    expect(() => telemetry.record(METRIC.nodesLabeled, 1, { Verb: 'filter' })).toThrow(/takes dimensions \[\]/);
  });

  it('writes no document where Powertools switches metrics off', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.nodesRejected, 2, { Reason: 'InsufficientGpus' });
    telemetry.record(METRIC.extenderRequests, 1, { Verb: 'filter' });
    expect(capture.lines()).toEqual([]);
  });
});
