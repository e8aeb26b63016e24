// EC2 Capacity Reservations for the AWS fault proxy. moto (5.2) serves
// neither DescribeCapacityReservations nor an instance's
// CapacityReservationId in DescribeInstances, so this stand-in answers the
// first from reservations a test declares and adds the second to moto's
// DescribeInstances answer, in EC2's own query-protocol XML. Everything else
// about the instances stays moto's.
import type { AwsCall, AwsStandIn } from './aws-fault-proxy';
import type { ProxyAnswer } from './fault-injection';

export interface StandInReservation {
  readonly id: string;
  /** `default` (an On-Demand Capacity Reservation) or `capacity-block`. */
  readonly reservationType: 'default' | 'capacity-block';
  readonly instanceType: string;
  /** Undefined: an ODCR without an end (EndDateType `unlimited`). */
  readonly endDate: Date | undefined;
  readonly totalInstanceCount: number;
}

export interface Ec2CapacityReservations extends AwsStandIn {
  /** Adds or replaces a reservation (a changed end, an end removed). */
  put(reservation: StandInReservation): void;
  /** The reservation is gone: EC2 answers InvalidCapacityReservationId.NotFound for it. */
  remove(id: string): void;
  /** The instance runs in the reservation (what RunInstances with a reservation target does in EC2). */
  place(instanceId: string, reservationId: string): void;
}

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const XML_HEADERS = { 'content-type': 'text/xml;charset=UTF-8' } as const;

function xmlAnswer(status: number, body: string): ProxyAnswer {
  return { status, headers: XML_HEADERS, body: `<?xml version="1.0" encoding="UTF-8"?>\n${body}` };
}

function reservationItem(r: StandInReservation, placed: number): string {
  const end = r.endDate === undefined ? '<endDateType>unlimited</endDateType>' : `<endDate>${r.endDate.toISOString()}</endDate><endDateType>limited</endDateType>`;
  return (
    `<item><capacityReservationId>${r.id}</capacityReservationId><instanceType>${r.instanceType}</instanceType>` +
    `<instancePlatform>Linux/UNIX</instancePlatform><availabilityZone>us-east-1a</availabilityZone><tenancy>default</tenancy>` +
    `<totalInstanceCount>${r.totalInstanceCount}</totalInstanceCount><availableInstanceCount>${Math.max(0, r.totalInstanceCount - placed)}</availableInstanceCount>` +
    `<state>active</state>${end}<reservationType>${r.reservationType}</reservationType></item>`
  );
}

/** The `CapacityReservationId.N` parameters of a query-protocol call. */
function requestedIds(params: URLSearchParams): string[] {
  const ids: string[] = [];
  for (const [key, value] of params) if (/^CapacityReservationId\.\d+$/.test(key)) ids.push(value);
  return ids;
}

export function createEc2CapacityReservations(): Ec2CapacityReservations {
  const reservations = new Map<string, StandInReservation>();
  const placements = new Map<string, string>();
  const placedIn = (id: string): number => [...placements.values()].filter((r) => r === id).length;

  const describe = (params: URLSearchParams): ProxyAnswer => {
    const ids = requestedIds(params);
    const missing = ids.find((id) => !reservations.has(id));
    if (missing !== undefined) {
      return xmlAnswer(
        400,
        `<Response><Errors><Error><Code>InvalidCapacityReservationId.NotFound</Code><Message>The capacity reservation ID '${missing}' does not exist</Message></Error></Errors><RequestID>${crypto.randomUUID()}</RequestID></Response>`,
      );
    }
    const chosen = ids.length === 0 ? [...reservations.values()] : ids.map((id) => reservations.get(id)).filter((r) => r !== undefined);
    const items = chosen.map((r) => reservationItem(r, placedIn(r.id))).join('');
    return xmlAnswer(
      200,
      `<DescribeCapacityReservationsResponse xmlns="${XMLNS}"><requestId>${crypto.randomUUID()}</requestId><capacityReservationSet>${items}</capacityReservationSet></DescribeCapacityReservationsResponse>`,
    );
  };

  return {
    put: (reservation) => void reservations.set(reservation.id, reservation),
    remove: (id) => void reservations.delete(id),
    place: (instanceId, reservationId) => void placements.set(instanceId, reservationId),
    answer(call: AwsCall, params: URLSearchParams): ProxyAnswer | undefined {
      return call.service === 'ec2' && call.action === 'DescribeCapacityReservations' ? describe(params) : undefined;
    },
    complete(call: AwsCall, _params: URLSearchParams, body: string): string | undefined {
      if (call.service !== 'ec2' || call.action !== 'DescribeInstances' || placements.size === 0) return undefined;
      // After the instance's own <instanceId> (the first element of its item), where EC2 lists it among the instance's fields.
      return body.replace(/<instanceId>(i-[0-9a-f]+)<\/instanceId>/g, (whole: string, id: string) => {
        const reservation = placements.get(id);
        return reservation === undefined ? whole : `${whole}<capacityReservationId>${reservation}</capacityReservationId>`;
      });
    },
  };
}
