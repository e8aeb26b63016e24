import type { CapacityReservation, EC2Client } from '@aws-sdk/client-ec2';
import { DescribeCapacityReservationsCommand } from '@aws-sdk/client-ec2';

/** The facts of a Capacity Reservation the labeler and the docs rely on (DescribeCapacityReservations). */
export interface CapacityReservationSummary {
  readonly id: string;
  /** `default` (an On-Demand Capacity Reservation) or `capacity-block`; as EC2 says, for unknown future kinds too. */
  readonly reservationType: string;
  /** When it ends; undefined for an ODCR without an end date (EndDateType `unlimited`). */
  readonly endDate: Date | undefined;
  readonly instanceType: string;
  readonly totalInstanceCount: number;
  readonly availableInstanceCount: number;
  /** `active`, `expired`, `scheduled`, … */
  readonly state: string;
}

/** Ids per DescribeCapacityReservations call (the labeler's own batch; EC2 pages the answer). */
export const RESERVATION_IDS_PER_CALL = 100;

export function toReservationSummary(reservation: CapacityReservation): CapacityReservationSummary | undefined {
  if (!reservation.CapacityReservationId) return undefined;
  return {
    id: reservation.CapacityReservationId,
    // EC2 leaves ReservationType out of ODCRs created before it existed: those are `default`.
    reservationType: reservation.ReservationType ?? 'default',
    endDate: reservation.EndDate,
    instanceType: reservation.InstanceType ?? '',
    totalInstanceCount: reservation.TotalInstanceCount ?? 0,
    availableInstanceCount: reservation.AvailableInstanceCount ?? 0,
    state: reservation.State ?? 'unknown',
  };
}

/** EC2's answer when one of the ids asked for does not exist (or is not shared with this account). */
function isNotFound(error: unknown): boolean {
  return error instanceof Error && /InvalidCapacityReservationId\.(NotFound|Malformed)/.test(error.name);
}

async function describeBatch(ec2: EC2Client, ids: readonly string[]): Promise<CapacityReservation[]> {
  const found: CapacityReservation[] = [];
  let nextToken: string | undefined;
  do {
    const page = await ec2.send(new DescribeCapacityReservationsCommand({ CapacityReservationIds: [...ids], NextToken: nextToken }));
    found.push(...(page.CapacityReservations ?? []));
    nextToken = page.NextToken;
  } while (nextToken);
  return found;
}

/**
 * DescribeCapacityReservations for the reservations instances run in: one
 * call per 100 ids. EC2 fails a whole call for one id it does not know (a
 * reservation cancelled since, or shared and then unshared); that batch is
 * then asked id by id, and the unknown ones are absent from the result.
 */
export async function describeCapacityReservations(ec2: EC2Client, ids: readonly string[]): Promise<Map<string, CapacityReservationSummary>> {
  const unique = [...new Set(ids)].filter((id) => id !== '');
  const byId = new Map<string, CapacityReservationSummary>();
  const keep = (reservations: readonly CapacityReservation[]): void => {
    for (const reservation of reservations) {
      const summary = toReservationSummary(reservation);
      if (summary !== undefined) byId.set(summary.id, summary);
    }
  };
  for (let i = 0; i < unique.length; i += RESERVATION_IDS_PER_CALL) {
    const batch = unique.slice(i, i + RESERVATION_IDS_PER_CALL);
    try {
      keep(await describeBatch(ec2, batch));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      for (const id of batch) {
        try {
          keep(await describeBatch(ec2, [id]));
        } catch (single) {
          if (!isNotFound(single)) throw single;
        }
      }
    }
  }
  return byId;
}
