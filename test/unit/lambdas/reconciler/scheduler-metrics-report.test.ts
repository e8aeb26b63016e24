import { describe, expect, it, vi } from 'vitest';
import { METRIC, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import { recordSchedulerMetrics } from '../../../../lambdas/reconciler/scheduler-metrics-report';

function recorded(summary: Parameters<typeof recordSchedulerMetrics>[1]) {
  const telemetry = createTelemetry(SERVICE.reconciler);
  const record = vi.spyOn(telemetry, 'record').mockImplementation(() => undefined);
  const warn = vi.spyOn(telemetry.logger, 'warn').mockImplementation(() => undefined);
  recordSchedulerMetrics(telemetry, summary);
  return { calls: record.mock.calls.map(([metric, value, dims]) => [metric.name, value, dims ?? {}]), warn };
}

describe('recordSchedulerMetrics', () => {
  it('records every result and queue, 0 included, and the mean latency', () => {
    const { calls, warn } = recorded({
      readyReplicas: 2,
      scraped: 2,
      interval: { attempts: { scheduled: 3 }, meanAttemptMs: 12.5 },
      pendingPods: { unschedulable: 1 },
      failures: [],
    });
    expect(calls).toEqual([
      [METRIC.gpuSchedulerReadyReplicas.name, 2, {}],
      ['GpuSchedulerAttempts', 3, { Result: 'scheduled' }],
      ['GpuSchedulerAttempts', 0, { Result: 'unschedulable' }],
      ['GpuSchedulerAttempts', 0, { Result: 'error' }],
      ['GpuSchedulerAttemptLatency', 12.5, {}],
      ['GpuSchedulerPendingPods', 0, { Queue: 'active' }],
      ['GpuSchedulerPendingPods', 0, { Queue: 'backoff' }],
      ['GpuSchedulerPendingPods', 1, { Queue: 'unschedulable' }],
      ['GpuSchedulerPendingPods', 0, { Queue: 'gated' }],
    ]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('records nothing it has no answer for, and counts failures as one error kind with a warning', () => {
    const { calls, warn } = recorded({ readyReplicas: undefined, scraped: 0, interval: undefined, pendingPods: undefined, failures: ['list replicas: HTTP 403'] });
    expect(calls).toEqual([['ReconcilerErrors', 1, { Kind: 'SchedulerMetrics' }]]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('second scheduler'), { failures: ['list replicas: HTTP 403'] });
  });
});
