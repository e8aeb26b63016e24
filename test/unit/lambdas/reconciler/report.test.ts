import { describe, expect, it, vi } from 'vitest';
import { METRIC, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { ReconcileSummary } from '../../../../lambdas/reconciler/reconcile';
import { emptySummary } from '../../../../lambdas/reconciler/reconcile';
import { recordReconcile } from '../../../../lambdas/reconciler/report';

function summary(overrides: Partial<ReconcileSummary> = {}): ReconcileSummary {
  return { ...emptySummary(), podsEvaluated: 3, deletionCostsWritten: 1, skippedUnchanged: 2, metricQueries: 9, ...overrides };
}

const NO_INVALID_NODES = { count: 0, examples: [] };

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

const NO_RESERVED_GPUS = { nodes: 0, allocatable: 0, idle: 0, idleHourlyCostUsd: 0 };
const NO_COSTS = {
  reserved: { total: NO_RESERVED_GPUS, byModel: {}, idleWhilePodsWaitForCapacity: 0, unpriced: 0 },
  namespaceCost: { namespaces: [], namespaceCount: 0, idleHourlyCostUsd: 0 },
};
const NO_CAPACITY = { gpuNodes: 0, launched: 0, terminating: 0, waitingForCapacity: 0, waitingForFit: 0, hourlyCostUsd: 0, unpriced: 0, unpricedTypes: [] };
const NO_HEALTH = {
  unhealthy: 0,
  degraded: 0,
  byModel: [],
  byClass: [],
  failingNodes: 0,
  oldestFailingSeconds: 0,
  failing: [],
  podsOnDegradedNodes: 0,
  avoidedNodes: new Set<string>(),
};

describe('recordReconcile: cluster outcome and deletion costs', () => {
  const gpus = (allocatable: number, allocated: number, stranded: number) => ({ nodes: 1, allocatable, allocated, idle: allocatable - allocated, stranded });
  const calls = (record: ReturnType<typeof spiedTelemetry>['record'], name: string) =>
    record.mock.calls.filter(([metric]) => metric.name === name).map(([, value, dimensions]) => (dimensions === undefined ? value : [value, dimensions]));

  it('writes the GPU numbers overall and per model, unlisted models summed as Other', () => {
    const { telemetry, record } = spiedTelemetry();
    recordReconcile(
      telemetry,
      summary({
        outcome: {
          gpus: gpus(20, 12, 1),
          byModel: { A100: gpus(8, 6, 1), X1: gpus(4, 2, 0), Y2: gpus(4, 4, 0), unknown: gpus(4, 0, 0) },
          pending: { count: 0, gated: 0, oldestSeconds: undefined, reasons: [] },
          invalidNodes: NO_INVALID_NODES,
          capacity: NO_CAPACITY,
          ...NO_COSTS,
          health: NO_HEALTH,
        },
      }),
    );
    expect([calls(record, 'GpusAllocatable'), calls(record, 'GpusAllocated'), calls(record, 'GpusIdle'), calls(record, 'GpusStranded')]).toEqual([[20], [12], [8], [1]]);
    expect(calls(record, 'GpusByModel').filter((c) => Array.isArray(c) && (c[1] as Record<string, string>).State === 'Allocated')).toEqual([
      [6, { GpuModel: 'A100', State: 'Allocated' }],
      [6, { GpuModel: 'Other', State: 'Allocated' }],
      [0, { GpuModel: 'Unknown', State: 'Allocated' }],
    ]);
    // Nothing pending is a value (alarms must see it), reasons are not.
    expect([calls(record, 'GpuPodsPending'), calls(record, 'GpuPodsAwaitingAdmission'), calls(record, 'OldestPendingGpuPodAge'), calls(record, 'GpuPodsPendingByReason')]).toEqual([[0], [0], [0], []]);
  });

  it('writes pending GPU pods, those awaiting admission apart, the oldest age and the reasons', () => {
    const { telemetry, record } = spiedTelemetry();
    const pending = { count: 3, gated: 8, oldestSeconds: 420, reasons: [{ code: 'InsufficientGpus', pods: 2 } as const, { code: 'Other', pods: 1 } as const] };
    recordReconcile(telemetry, summary({ outcome: { gpus: gpus(0, 0, 0), byModel: {}, pending, invalidNodes: NO_INVALID_NODES, capacity: NO_CAPACITY, ...NO_COSTS, health: NO_HEALTH } }));
    expect([calls(record, 'GpuPodsPending'), calls(record, 'GpuPodsAwaitingAdmission'), calls(record, 'OldestPendingGpuPodAge')]).toEqual([[3], [8], [420]]);
    expect(calls(record, 'GpuPodsPendingByReason')).toEqual([
      [2, { Reason: 'InsufficientGpus' }],
      [1, { Reason: 'Other' }],
    ]);
  });

  it('writes the capacity numbers, and warns about GPU nodes without a price', () => {
    const { telemetry, record, warn } = spiedTelemetry();
    const capacity = { gpuNodes: 3, launched: 1, terminating: 1, waitingForCapacity: 2, waitingForFit: 1, hourlyCostUsd: 11.344, unpriced: 1, unpricedTypes: ['x9.large'] };
    recordReconcile(telemetry, summary({ outcome: { gpus: gpus(12, 4, 0), byModel: {}, pending: { count: 3, gated: 0, oldestSeconds: 60, reasons: [] }, invalidNodes: NO_INVALID_NODES, capacity, ...NO_COSTS, health: NO_HEALTH } }));
    expect(
      ['GpuNodes', 'GpuNodesLaunched', 'GpuNodesTerminating', 'GpuNodesHourlyCostUsd', 'GpuNodesUnpriced', 'GpuPodsWaitingForCapacity', 'GpuPodsWaitingForFit'].map((name) => calls(record, name)),
    ).toEqual([[3], [1], [1], [11.344], [1], [2], [1]]);
    expect(warn.mock.calls[0]?.[1]).toEqual({ nodes: 1, instanceTypes: ['x9.large'] });
  });

  it('warns once, naming a few, about nodes whose GPUs are left out for invalid data; not when there are none', () => {
    const { telemetry, warn } = spiedTelemetry();
    const pending = { count: 0, gated: 0, oldestSeconds: undefined, reasons: [] };
    recordReconcile(telemetry, summary({ outcome: { gpus: gpus(8, 0, 0), byModel: {}, pending, invalidNodes: NO_INVALID_NODES, capacity: NO_CAPACITY, ...NO_COSTS, health: NO_HEALTH } }));
    expect(warn).not.toHaveBeenCalled();
    const examples = [{ node: 'p5-a', reason: 'ResourceSlices of gpu.nvidia.com: device "gpu-0" has no productName' }];
    recordReconcile(telemetry, summary({ outcome: { gpus: gpus(8, 0, 0), byModel: {}, pending, invalidNodes: { count: 7, examples }, capacity: NO_CAPACITY, ...NO_COSTS, health: NO_HEALTH } }));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toEqual({ nodes: 7, examples });
  });

  it('writes no outcome when a listing failed, and the cost ranges only when pods were evaluated', () => {
    const { telemetry, record } = spiedTelemetry();
    recordReconcile(telemetry, summary({ podsEvaluated: 0 }));
    expect([calls(record, 'GpusAllocatable'), calls(record, 'DeletionCosts')]).toEqual([[], []]);
    recordReconcile(telemetry, summary({ deletionCosts: { Negative: 1, Zero: 2, '1-99': 0, '100-499': 0, '500-999': 3, '1000+': 0 } }));
    expect(calls(record, 'DeletionCosts')).toEqual([
      [1, { Range: 'Negative' }],
      [2, { Range: 'Zero' }],
      [0, { Range: '1-99' }],
      [0, { Range: '100-499' }],
      [3, { Range: '500-999' }],
      [0, { Range: '1000+' }],
    ]);
  });
  it('writes GPU health: totals always, by model and class only where there are some, and warns naming failing nodes', () => {
    const { telemetry, record, warn } = spiedTelemetry();
    const pending = { count: 0, gated: 0, oldestSeconds: undefined, reasons: [] };
    const health = {
      ...NO_HEALTH,
      unhealthy: 9,
      degraded: 4,
      byModel: [
        { key: 'H100', unhealthy: 8, degraded: 0 },
        { key: 'unknown', unhealthy: 1, degraded: 4 },
      ],
      byClass: [{ key: 'Xid' as const, unhealthy: 8, degraded: 4 }],
      failingNodes: 1,
      oldestFailingSeconds: 660,
      failing: [{ node: 'p5-a', condition: 'AcceleratedHardwareReady=False: NvidiaXID79Error (GPU has fallen off the bus)' }],
      podsOnDegradedNodes: 2,
    };
    recordReconcile(telemetry, summary({ outcome: { gpus: gpus(8, 0, 0), byModel: {}, pending, invalidNodes: NO_INVALID_NODES, capacity: NO_CAPACITY, ...NO_COSTS, health } }));
    expect(['GpusUnhealthy', 'GpusDegraded', 'GpuNodesFailing', 'OldestFailingGpuNodeAge', 'GpuPodsOnDegradedNodes'].map((name) => calls(record, name))).toEqual([[9], [4], [1], [660], [2]]);
    expect(calls(record, 'GpuHealthByModel')).toEqual([
      [8, { GpuModel: 'H100', State: 'Unhealthy' }],
      [1, { GpuModel: 'Unknown', State: 'Unhealthy' }],
      [4, { GpuModel: 'Unknown', State: 'Degraded' }],
    ]);
    expect(calls(record, 'GpuHealthByClass')).toEqual([
      [8, { Class: 'Xid', State: 'Unhealthy' }],
      [4, { Class: 'Xid', State: 'Degraded' }],
    ]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[1]).toEqual({ nodes: 1, examples: health.failing });
  });
});
