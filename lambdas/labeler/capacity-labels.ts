import type { CapacityReservationSummary, InstanceSummary } from '../aws';
import { CAPACITY_LABEL, EKS_CAPACITY_TYPE_LABEL, KARPENTER_CAPACITY_LABEL } from '../scheduling/keys';
import type { CapacityType } from '../scheduling/node-capacity';
import type { LabelSetOptions } from './gpu-labels';
import { ownedLabelKeys, toLabelValue } from './gpu-labels';

/** The capacity keys the labeler owns: it sets, corrects and removes them, on GPU nodes. */
export const CAPACITY_LABEL_KEYS: readonly string[] = Object.values(CAPACITY_LABEL);

/** Every node label key the labeler owns: the GPU keys (compatibility keys while switched on) and the capacity keys. */
export function ownedNodeLabelKeys(options: LabelSetOptions): readonly string[] {
  return [...ownedLabelKeys(options), ...CAPACITY_LABEL_KEYS];
}

/** EC2 lifecycles of instances that run in a reservation even without a CapacityReservationId shown. */
const RESERVED_LIFECYCLES: ReadonlySet<string> = new Set(['capacity-block', 'interruptible-capacity-reservation']);

/** How EC2 says the instance's capacity was bought. */
export function ec2CapacityType(instance: InstanceSummary): CapacityType {
  if (instance.capacityReservationId !== undefined || RESERVED_LIFECYCLES.has(instance.lifecycle ?? '')) return 'reserved';
  return instance.lifecycle === 'spot' ? 'spot' : 'on-demand';
}

const EKS_TYPES: Readonly<Record<string, CapacityType>> = { ON_DEMAND: 'on-demand', SPOT: 'spot', CAPACITY_BLOCK: 'reserved' };

/** What Karpenter (or EKS Auto Mode, which writes the same key) or an EKS managed node group already states on the node. */
function statedCapacityType(labels: Readonly<Record<string, string>>): string | undefined {
  const karpenter = labels[KARPENTER_CAPACITY_LABEL.capacityType];
  if (karpenter !== undefined) return karpenter;
  const eks = labels[EKS_CAPACITY_TYPE_LABEL];
  return eks === undefined ? undefined : (EKS_TYPES[eks] ?? eks);
}

/**
 * The capacity labels a GPU node of this instance should carry:
 * `gpu.nvidia.com/capacity-type` where neither Karpenter nor EKS states the
 * type, or states another than EC2 (EKS Auto Mode labels an instance it
 * launched into an open ODCR `on-demand`; it is reserved, and paid for);
 * the reservation's type and its end (Unix seconds) wherever the instance
 * runs in a reservation EC2 described. A reservation without an end, or one
 * EC2 no longer knows, has no end label: a label written before is removed.
 */
export function desiredCapacityLabels(
  instance: InstanceSummary,
  reservation: CapacityReservationSummary | undefined,
  current: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const type = ec2CapacityType(instance);
  const labels: Record<string, string> = {};
  if (statedCapacityType(current ?? {}) !== type) labels[CAPACITY_LABEL.capacityType] = type;
  if (reservation !== undefined) {
    labels[CAPACITY_LABEL.reservationType] = toLabelValue(reservation.reservationType);
    const end = reservation.endDate?.getTime();
    if (end !== undefined && Number.isFinite(end)) labels[CAPACITY_LABEL.reservationEnd] = String(Math.floor(end / 1000));
  }
  return labels;
}

/** The GPU labels with the capacity labels added, for a node that has GPUs; a node without GPU labels gets none of ours. */
export function withCapacityLabels(
  gpuLabels: Readonly<Record<string, string>>,
  instance: InstanceSummary,
  reservation: CapacityReservationSummary | undefined,
  current: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  if (Object.keys(gpuLabels).length === 0) return { ...gpuLabels };
  return { ...gpuLabels, ...desiredCapacityLabels(instance, reservation, current) };
}
