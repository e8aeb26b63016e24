import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { GpuModelValue } from './gpu-model-dimension';
import { gpuModelValue } from './gpu-model-dimension';
import type { NamespaceCostOutcome } from './namespace-cost';
import type { ReservedCapacityOutcome, ReservedGpus } from './reserved-capacity';

const round2 = (value: number): number => Math.round(value * 100) / 100;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Reserved GPUs by model (models present only; unlisted ones summed as
 * `Other`), what the idle ones cost, and, every run so an alarm sees a
 * healthy 0, the idle reserved GPUs while pods wait for new capacity, with a
 * warning naming them when there are any.
 */
export function recordReservedCapacity(telemetry: Telemetry, reserved: ReservedCapacityOutcome): void {
  const byValue = new Map<GpuModelValue, ReservedGpus[]>();
  for (const [model, gpus] of Object.entries(reserved.byModel)) {
    const value = gpuModelValue(model);
    byValue.set(value, [...(byValue.get(value) ?? []), gpus]);
  }
  for (const [GpuModel, list] of byValue) {
    const sum = (pick: (g: ReservedGpus) => number): number => list.reduce((total, g) => total + pick(g), 0);
    telemetry.record(METRIC.reservedGpus, round2(sum((g) => g.allocatable)), { GpuModel, State: 'Allocatable' });
    telemetry.record(METRIC.reservedGpus, round2(sum((g) => g.idle)), { GpuModel, State: 'Idle' });
    telemetry.record(METRIC.reservedGpusIdleHourlyCost, round3(sum((g) => g.idleHourlyCostUsd)), { GpuModel });
  }
  telemetry.record(METRIC.reservedGpusIdleWhileWaiting, reserved.idleWhilePodsWaitForCapacity);
  if (reserved.idleWhilePodsWaitForCapacity > 0) {
    telemetry.logger.warn('reserved GPUs sit idle while GPU pods wait for new capacity: pods that could use them do not fit there (model, memory, CPU, affinity or taints)', {
      idleReservedGpus: reserved.idleWhilePodsWaitForCapacity,
      idleHourlyCostUsd: reserved.total.idleHourlyCostUsd,
      byModel: Object.fromEntries(Object.entries(reserved.byModel).map(([model, gpus]) => [model, gpus.idle])),
    });
  }
}

/** GPUs and dollars per hour of each reported namespace (one EMF document each), and the idle GPUs' cost, every run. */
export function recordNamespaceCost(telemetry: Telemetry, cost: NamespaceCostOutcome): void {
  for (const { namespace, gpus, hourlyCostUsd } of cost.namespaces) {
    telemetry.recordTogether(
      [
        [METRIC.namespaceGpusAllocated, gpus],
        [METRIC.namespaceGpuHourlyCost, hourlyCostUsd],
      ],
      { Namespace: namespace },
    );
  }
  telemetry.record(METRIC.gpusIdleHourlyCost, cost.idleHourlyCostUsd);
}
