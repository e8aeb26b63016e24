import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRIC, METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';

interface EmfLine {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** Captures what Powertools writes to stdout (EMF lines and log lines). */
function captureStdout(): { lines: () => string[]; restore: () => void } {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  });
  return {
    lines: () => chunks.join('').split('\n').filter((l) => l.trim() !== ''),
    restore: () => spy.mockRestore(),
  };
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

describe('createTelemetry', () => {
  let capture: ReturnType<typeof captureStdout> | undefined;
  afterEach(() => capture?.restore());

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

  it('publishes an invocation as one document: each metric under its own dimension set, values at the top level', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.extenderRequests, 1, { Verb: 'filter' });
    telemetry.record(METRIC.extenderLatency, 12, { Verb: 'filter' });
    telemetry.record(METRIC.nodesRejected, 3, { Reason: 'InsufficientGpus' });
    expect(capture.lines()).toEqual([]);
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf).toHaveLength(1);
    const line = emf[0]!;
    expect(line._aws.CloudWatchMetrics).toEqual([
      { Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Verb']], Metrics: [{ Name: 'ExtenderRequests', Unit: 'Count' }, { Name: 'ExtenderLatency', Unit: 'Milliseconds' }] },
      { Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Reason']], Metrics: [{ Name: 'NodesRejected', Unit: 'Count' }] },
    ]);
    expect(line).toMatchObject({ service: SERVICE.extender, Verb: 'filter', Reason: 'InsufficientGpus', ExtenderRequests: 1, ExtenderLatency: 12, NodesRejected: 3 });
  });

  it('opens another document only for a second value of a dimension or of a metric, and forgets what it flushed', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.extender);
    telemetry.record(METRIC.extenderLatency, 12, { Verb: 'filter' });
    telemetry.record(METRIC.nodesRejected, 3, { Reason: 'InsufficientGpus' });
    telemetry.record(METRIC.nodesRejected, 2, { Reason: 'GpuModelMismatch' });
    telemetry.record(METRIC.extenderLatency, 7, { Verb: 'prioritize' });
    telemetry.flush();
    telemetry.record(METRIC.extenderLatency, 5, { Verb: 'preempt' });
    telemetry.flush();
    const emf = emfLines(capture.lines());
    expect(emf.map((l) => [l.Verb, l.ExtenderLatency, l.Reason, l.NodesRejected])).toEqual([
      ['filter', 12, 'InsufficientGpus', 3],
      ['prioritize', 7, 'GpuModelMismatch', 2],
      ['preempt', 5, undefined, undefined],
    ]);
    for (const line of emf) {
      for (const directive of line._aws.CloudWatchMetrics) {
        const dimensions = directive.Dimensions[0]!;
        expect(directive.Metrics.every((m) => m.Name in line)).toBe(true);
        expect(dimensions.every((d) => typeof line[d] === 'string')).toBe(true);
      }
    }
  });

  it('keeps the catalog order of dimensions whatever order they are given in', () => {
    capture = captureStdout();
    const telemetry = createTelemetry(SERVICE.reconciler);
    telemetry.record(METRIC.gpusByModel, 4, { State: 'Idle', GpuModel: 'A100' });
    telemetry.flush();
    const directive = emfLines(capture.lines())[0]!._aws.CloudWatchMetrics[0]!;
    expect(directive.Dimensions).toEqual([['service', 'GpuModel', 'State']]);
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
});
