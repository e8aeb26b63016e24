import { describe, expect, it, vi } from 'vitest';
import { METRIC, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { ReconcileSummary } from '../../../../lambdas/reconciler/reconcile';
import { emptySummary } from '../../../../lambdas/reconciler/reconcile';
import { recordReconcile } from '../../../../lambdas/reconciler/report';

function summary(overrides: Partial<ReconcileSummary> = {}): ReconcileSummary {
  return { ...emptySummary(), podsEvaluated: 3, deletionCostsWritten: 1, skippedUnchanged: 2, metricQueries: 9, ...overrides };
}

function spiedTelemetry() {
  const telemetry = createTelemetry(SERVICE.reconciler);
  const record = vi.spyOn(telemetry, 'record').mockImplementation(() => undefined);
  const warn = vi.spyOn(telemetry.logger, 'warn').mockImplementation(() => undefined);
  return { telemetry, record, warn };
}

describe('recordReconcile: opted-in pods no controller reads a cost of', () => {
  it('counts them by owner kind and names them in one warning', () => {
    const { telemetry, record, warn } = spiedTelemetry();
    recordReconcile(
      telemetry,
      summary({
        podsNotCovered: { StatefulSet: 2, Job: 0, DaemonSet: 0, Other: 0, None: 1 },
        podsNotCoveredExamples: ['db/pg-0 (apps/v1 StatefulSet)', 'db/pg-1 (apps/v1 StatefulSet)', 'web/debug (no controller)'],
      }),
    );
    const notCovered = record.mock.calls.filter(([metric]) => metric === METRIC.podsNotCovered).map(([, value, dimensions]) => [value, dimensions]);
    expect(notCovered).toEqual([
      [2, { OwnerKind: 'StatefulSet' }],
      [1, { OwnerKind: 'None' }],
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toEqual({
      byOwnerKind: { StatefulSet: 2, None: 1 },
      examples: ['db/pg-0 (apps/v1 StatefulSet)', 'db/pg-1 (apps/v1 StatefulSet)', 'web/debug (no controller)'],
    });
  });

  it('says nothing when every opted-in pod is ReplicaSet-owned', () => {
    const { telemetry, record, warn } = spiedTelemetry();
    recordReconcile(telemetry, summary());
    expect(record.mock.calls.some(([metric]) => metric === METRIC.podsNotCovered)).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });
});
