import type { CapacityReservationSummary, InstanceSummary, InstanceTypeGpuCatalog } from '../aws';
import type { NodeGateway } from '../kube';
import type { LabelerConfig } from './config';
import type { Clock } from './node-registration';

/** EC2 lookups the labeler makes, batched by the implementation. */
export interface InstanceDirectory {
  byIds(instanceIds: readonly string[]): Promise<ReadonlyMap<string, InstanceSummary>>;
  byPrivateDnsNames(dnsNames: readonly string[]): Promise<ReadonlyMap<string, InstanceSummary>>;
}

/** EC2's Capacity Reservations, asked only for the ids instances run in; ids EC2 does not know are absent. */
export interface ReservationDirectory {
  byIds(reservationIds: readonly string[]): Promise<ReadonlyMap<string, CapacityReservationSummary>>;
}

/** Everything the labeling logic talks to; the handler builds the real ones. */
export interface LabelerDeps {
  readonly config: LabelerConfig;
  readonly nodes: NodeGateway;
  readonly instances: InstanceDirectory;
  readonly gpuTypes: InstanceTypeGpuCatalog;
  readonly reservations: ReservationDirectory;
  /** Paces the wait for a node to register. */
  readonly clock: Clock;
}
