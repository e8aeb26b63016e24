import { afterEach, describe, expect, it } from 'vitest';
import { telemetryObserver } from '../../../../lambdas/extender/observer';
import { SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import { REJECTION_REASONS } from '../../../../lambdas/scheduling';
import type { StdoutCapture } from '../observability/stdout-capture';
import { captureStdout } from '../observability/stdout-capture';

let capture: StdoutCapture | undefined;
function captureOutput(): { lines: () => Record<string, unknown>[] } {
  capture = captureStdout();
  return { lines: capture.records };
}

afterEach(() => {
  capture?.restore();
});

describe('telemetry observer', () => {
  it('one decision = one log line with the summary, plus request, latency and per-reason EMF metrics', () => {
    const out = captureOutput();
    const telemetry = createTelemetry(SERVICE.extender);
    const observer = telemetryObserver(telemetry);
    observer.decision(
      'filter',
      {
        pod: 'ml/p',
        mode: 'NodeNames',
        candidates: 5,
        kept: 1,
        failed: 4,
        reasons: { GpuModelMismatch: 3, NodeNotFound: 1 },
        topReasons: ['GPU model mismatch: pod wants A100, node has T4 (3 nodes)'],
      },
      1.23456,
    );
    const lines = out.lines();
    const decision = lines.filter((l) => l.message === 'extender decision');
    expect(decision).toHaveLength(1);
    expect(decision[0]).toMatchObject({ verb: 'filter', pod: 'ml/p', kept: 1, failed: 4, durationMs: 1.235, reasons: { GpuModelMismatch: 3 } });
    const metric = (name: string) => lines.filter((l) => name in l);
    expect(metric('ExtenderRequests')).toEqual([expect.objectContaining({ Verb: 'filter', ExtenderRequests: 1 })]);
    expect(metric('ExtenderLatency')).toEqual([expect.objectContaining({ Verb: 'filter', ExtenderLatency: 1.23456 })]);
    // Count and latency share the Verb dimension: one EMF document (one write), not one each.
    expect(metric('ExtenderRequests')[0]).toBe(metric('ExtenderLatency')[0]);
    expect(metric('NodesRejected').map((l) => [l.Reason, l.NodesRejected])).toEqual([
      ['GpuModelMismatch', 3],
      ['NodeNotFound', 1],
    ]);
  });

  it('every library rejection code is a valid Reason dimension of the catalog', () => {
    captureOutput();
    const observer = telemetryObserver(createTelemetry(SERVICE.extender));
    const reasons = Object.fromEntries(REJECTION_REASONS.map((r) => [r, 1]));
    expect(() => observer.decision('prioritize', { pod: 'a/b', mode: 'Nodes', candidates: 9, kept: 0, failed: 9, reasons, topReasons: [] }, 1)).not.toThrow();
  });

  it('failures count as errors for their verb; unrouted requests only log', () => {
    const out = captureOutput();
    const telemetry = createTelemetry(SERVICE.extender);
    const observer = telemetryObserver(telemetry);
    observer.failure('preempt', 503, 'cluster cache unavailable: x', 2);
    observer.failure(undefined, 404, 'no route for /x', 0.1);
    const lines = out.lines();
    expect(lines.filter((l) => 'ExtenderErrors' in l)).toEqual([expect.objectContaining({ Verb: 'preempt', ExtenderErrors: 1, ExtenderRequests: 1, ExtenderLatency: 2 })]);
    expect(lines.filter((l) => l.message === 'extender request failed')).toEqual([expect.objectContaining({ status: 503, verb: 'preempt' })]);
    expect(lines.filter((l) => l.message === 'extender request rejected')).toEqual([expect.objectContaining({ status: 404, verb: 'none' })]);
  });
});
