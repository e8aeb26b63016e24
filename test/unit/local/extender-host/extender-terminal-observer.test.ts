import { afterEach, describe, expect, it, vi } from 'vitest';
import { SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { DecisionSummary } from '../../../../lambdas/extender/decision';
import { formatDecision, formatFailure, localServerObserver, terminalObserver } from '../../../../local/extender-host/extender-terminal-observer';
import { stdoutDuring } from '../../lambdas/observability/stdout-capture';

const AT = new Date('2026-01-02T09:25:30.123Z');
const SUMMARY: DecisionSummary = {
  pod: 'ml/llm-ft-0',
  mode: 'Nodes',
  candidates: 4,
  kept: 2,
  failed: 2,
  reasons: { GpuModelMismatch: 2 },
  topReasons: ['GPU model mismatch: pod wants A100, node has T4 (1 node)', 'GPU model mismatch: pod wants A100, node has A10G (1 node)'],
};


afterEach(() => {
  vi.restoreAllMocks();
});

describe('terminal output of npm run extender', () => {
  it('says in one line what a verb decided, how long it took and why nodes were rejected', () => {
    expect(formatDecision('filter', SUMMARY, 6.895, AT)).toBe(
      '09:25:30 filter ml/llm-ft-0 [Nodes]: 2 of 4 nodes fit (6.9 ms); GPU model mismatch: pod wants A100, node has T4 (1 node); GPU model mismatch: pod wants A100, node has A10G (1 node)',
    );
    expect(formatDecision('prioritize', { ...SUMMARY, failed: 0, kept: 4, reasons: {}, topReasons: [] }, 12.4, AT)).toBe(
      '09:25:30 prioritize ml/llm-ft-0 [Nodes]: 4 of 4 nodes fit (12 ms)',
    );
    expect(formatDecision('preempt', { ...SUMMARY, mode: 'MetaVictims', topReasons: [] }, 1, AT)).toBe('09:25:30 preempt ml/llm-ft-0 [MetaVictims]: 2 of 4 candidates fit (1.0 ms)');
    expect(formatFailure(undefined, 404, 'no route for POST /x', 0.21, AT)).toBe('09:25:30 request answered 404 (0.2 ms): no route for POST /x');
  });

  it('on a terminal: one readable line per decision and no EMF metric lines', () => {
    const written: string[] = [];
    const observer = localServerObserver(true, createTelemetry(SERVICE.extender), (line) => written.push(line));
    const stdout = stdoutDuring(() => observer.decision('filter', SUMMARY, 6.9)).lines();
    expect(written).toHaveLength(1);
    expect(written[0]).toContain('filter ml/llm-ft-0 [Nodes]: 2 of 4 nodes fit');
    expect(stdout).toEqual([]);
  });

  it('elsewhere (a file, a pipe, Lambda): the JSON decision log line and the EMF metrics, as the Lambda writes them', () => {
    const written: string[] = [];
    const observer = localServerObserver(false, createTelemetry(SERVICE.extender), (line) => written.push(line));
    const stdout = stdoutDuring(() => observer.decision('filter', SUMMARY, 6.9)).lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(written).toEqual([]);
    expect(stdout.find((l) => l['message'] === 'extender decision')).toMatchObject({ verb: 'filter', pod: 'ml/llm-ft-0' });
    const metrics = stdout.filter((l) => '_aws' in l).flatMap((l) => Object.keys(l).filter((k) => ['ExtenderRequests', 'ExtenderLatency', 'NodesRejected'].includes(k)));
    expect(metrics.sort()).toEqual(['ExtenderLatency', 'ExtenderRequests', 'NodesRejected']);
  });

  it('warnings are one line with their details', () => {
    const written: string[] = [];
    terminalObserver((line) => written.push(line), () => AT).warn('background cluster cache refresh failed', { error: 'ECONNREFUSED', nodes: 3 });
    expect(written).toEqual(['09:25:30 warning: background cluster cache refresh failed (error=ECONNREFUSED, nodes=3)']);
  });
});
