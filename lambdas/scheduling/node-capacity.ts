import { CAPACITY_LABEL, EKS_CAPACITY_TYPE_LABEL, KARPENTER_CAPACITY_LABEL } from './keys';

/** How a node's capacity was bought. */
export type CapacityType = 'reserved' | 'on-demand' | 'spot';

export const CAPACITY_TYPES: readonly CapacityType[] = ['reserved', 'on-demand', 'spot'];

/** EC2's ReservationType of a Capacity Reservation. */
export type ReservationType = 'default' | 'capacity-block';

/** What a node's labels say about its capacity, whoever wrote them. */
export interface NodeCapacity {
  /** Undefined when no labeller said. */
  readonly type: CapacityType | undefined;
  /** Undefined when the node is in no reservation, or no labeller said which kind. */
  readonly reservationType: ReservationType | undefined;
  /** When the node's reservation ends, ms since the epoch; undefined without an end (or not labelled yet). */
  readonly reservationEndMs: number | undefined;
}

const EKS_TYPES: Readonly<Record<string, CapacityType>> = { ON_DEMAND: 'on-demand', SPOT: 'spot', CAPACITY_BLOCK: 'reserved' };

function capacityType(value: string | undefined): CapacityType | undefined {
  return value === 'reserved' || value === 'on-demand' || value === 'spot' ? value : undefined;
}

function reservationType(value: string | undefined): ReservationType | undefined {
  return value === 'default' || value === 'capacity-block' ? value : undefined;
}

/** Whole Unix seconds, as the labeler writes them; anything else is unknown. */
function endMs(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,12}$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

const cache = new WeakMap<Readonly<Record<string, string>>, NodeCapacity>();

/**
 * A node's capacity from its labels: ours first (the labeler writes the
 * type only where the others do not say, or say otherwise than EC2, as EKS
 * Auto Mode does for an open ODCR), then Karpenter's, then an EKS managed
 * node group's. Kept per label object, which a node's snapshot entry never
 * changes, so the per-node loops of a cycle read it once.
 */
export function nodeCapacity(labels: Readonly<Record<string, string>>): NodeCapacity {
  let found = cache.get(labels);
  if (found !== undefined) return found;
  const eks = labels[EKS_CAPACITY_TYPE_LABEL];
  found = {
    type: capacityType(labels[CAPACITY_LABEL.capacityType]) ?? capacityType(labels[KARPENTER_CAPACITY_LABEL.capacityType]) ?? (eks === undefined ? undefined : EKS_TYPES[eks]),
    reservationType:
      reservationType(labels[CAPACITY_LABEL.reservationType]) ??
      reservationType(labels[KARPENTER_CAPACITY_LABEL.reservationType]) ??
      (eks === 'CAPACITY_BLOCK' ? 'capacity-block' : undefined),
    reservationEndMs: endMs(labels[CAPACITY_LABEL.reservationEnd]),
  };
  cache.set(labels, found);
  return found;
}

/**
 * When EC2 takes the node back: the end of its Capacity Block. An On-Demand
 * Capacity Reservation that ends only stops being reserved (its instances run
 * on at On-Demand rates), so its end takes nothing away.
 */
export function reclaimedAtMs(capacity: NodeCapacity): number | undefined {
  return capacity.reservationType === 'capacity-block' ? capacity.reservationEndMs : undefined;
}
