import { ConfigError } from '../env';
import type { Env } from '../env';
import type { ReservationType } from '../scheduling/node-capacity';
import { nodeCapacity } from '../scheduling/node-capacity';

/** The well-known label of a node's EC2 instance type (set by the kubelet, Karpenter and EKS): what a node is priced by. */
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

/**
 * On-demand Linux list prices in USD per hour, us-east-1, of the NVIDIA GPU
 * instance types (AWS price list, after the June 2025 P4/P5 reduction). The
 * hourly cost on the dashboard multiplies them by the GPU nodes of each type;
 * Spot nodes are counted at this price too (an upper bound). Other regions,
 * savings plans or types not listed: set GPU_PRICES_USD (below), which
 * replaces entries of this table and adds new ones. Reserved nodes have
 * their own rates (RESERVATION_PRICES_USD, below).
 */
export const DEFAULT_GPU_PRICES_USD: Readonly<Record<string, number>> = {
  'g4dn.xlarge': 0.526,
  'g4dn.2xlarge': 0.752,
  'g4dn.4xlarge': 1.204,
  'g4dn.8xlarge': 2.176,
  'g4dn.12xlarge': 3.912,
  'g4dn.16xlarge': 4.352,
  'g4dn.metal': 7.824,
  'g5.xlarge': 1.006,
  'g5.2xlarge': 1.212,
  'g5.4xlarge': 1.624,
  'g5.8xlarge': 2.448,
  'g5.12xlarge': 5.672,
  'g5.16xlarge': 4.096,
  'g5.24xlarge': 8.144,
  'g5.48xlarge': 16.288,
  'g6.xlarge': 0.8048,
  'g6.2xlarge': 0.9776,
  'g6.4xlarge': 1.3232,
  'g6.8xlarge': 2.0144,
  'g6.12xlarge': 4.6016,
  'g6.16xlarge': 3.3968,
  'g6.24xlarge': 6.6752,
  'g6.48xlarge': 13.3504,
  'g6e.xlarge': 1.861,
  'g6e.2xlarge': 2.242,
  'g6e.4xlarge': 3.004,
  'g6e.8xlarge': 4.529,
  'g6e.12xlarge': 10.493,
  'g6e.16xlarge': 7.577,
  'g6e.24xlarge': 15.066,
  'g6e.48xlarge': 30.131,
  'p4d.24xlarge': 21.958,
  'p5.48xlarge': 55.04,
};

const INSTANCE_TYPE = /^[a-z][a-z0-9-]*\.[a-z0-9-]+$/;
const RESERVATION_TYPES: readonly ReservationType[] = ['default', 'capacity-block'];

/**
 * GPU_PRICES_USD: `type=price` pairs separated by commas, e.g.
 * `g6e.12xlarge=7.12,p5.48xlarge=41.5` (USD per hour), on top of the table.
 */
export function gpuPricesFromEnv(env: Env): Readonly<Record<string, number>> {
  const text = env.GPU_PRICES_USD?.trim();
  if (!text) return DEFAULT_GPU_PRICES_USD;
  const prices: Record<string, number> = { ...DEFAULT_GPU_PRICES_USD };
  for (const pair of text.split(',')) {
    const [type = '', price = '', ...rest] = pair.split('=').map((part) => part.trim());
    const value = Number(price);
    if (rest.length > 0 || !INSTANCE_TYPE.test(type) || price === '' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError('GPU_PRICES_USD', env.GPU_PRICES_USD, 'instance-type=USD-per-hour pairs separated by commas, e.g. g6e.12xlarge=7.12,p5.48xlarge=41.5');
    }
    prices[type] = value;
  }
  return prices;
}

/**
 * Prices of reserved nodes, USD per hour, by reservation type and instance
 * type, where they differ from the table. EC2 bills an On-Demand Capacity
 * Reservation (`default`) at the On-Demand rate, used or not, so the table
 * stands for it unless a discount applies; a Capacity Block is paid up front
 * at the rate of its purchase (the reservation fee ÷ its hours), which the
 * table does not know: set it here.
 */
export type ReservationPrices = Readonly<Record<ReservationType, Readonly<Record<string, number>>>>;

export const NO_RESERVATION_PRICES: ReservationPrices = { default: {}, 'capacity-block': {} };

/**
 * RESERVATION_PRICES_USD: `<reservation-type>/<instance-type>=price` pairs
 * separated by commas, the type `default` (ODCR) or `capacity-block`, e.g.
 * `capacity-block/p5.48xlarge=31.46,default/p4d.24xlarge=15.2`.
 */
export function reservationPricesFromEnv(env: Env): ReservationPrices {
  const text = env.RESERVATION_PRICES_USD?.trim();
  if (!text) return NO_RESERVATION_PRICES;
  const prices: Record<ReservationType, Record<string, number>> = { default: {}, 'capacity-block': {} };
  for (const pair of text.split(',')) {
    const [key = '', price = '', ...rest] = pair.split('=').map((part) => part.trim());
    const [reservation = '', type = '', ...more] = key.split('/').map((part) => part.trim());
    const value = Number(price);
    const known = RESERVATION_TYPES.find((candidate) => candidate === reservation);
    if (rest.length > 0 || more.length > 0 || known === undefined || !INSTANCE_TYPE.test(type) || price === '' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(
        'RESERVATION_PRICES_USD',
        env.RESERVATION_PRICES_USD,
        'reservation-type/instance-type=USD-per-hour pairs separated by commas, the reservation type default or capacity-block, e.g. capacity-block/p5.48xlarge=31.46',
      );
    }
    prices[known][type] = value;
  }
  return prices;
}

/** What the reconciler prices nodes with. */
export interface NodePrices {
  /** USD per hour per instance type (DEFAULT_GPU_PRICES_USD with GPU_PRICES_USD). */
  readonly pricesUsd: Readonly<Record<string, number>>;
  /** Reserved nodes' own rates (RESERVATION_PRICES_USD); absent: the table's. */
  readonly reservationPricesUsd?: ReservationPrices;
}

/**
 * A node's hourly price from its labels: its reservation's rate when it is
 * reserved and one is set for its reservation type and instance type, else
 * the table's price of its instance type (Spot nodes too: an upper bound).
 * Undefined when neither knows the type.
 */
export function nodeHourlyPriceUsd(labels: Readonly<Record<string, string>>, prices: NodePrices): number | undefined {
  const type = labels[INSTANCE_TYPE_LABEL] ?? '';
  const capacity = nodeCapacity(labels);
  if (capacity.type === 'reserved' && capacity.reservationType !== undefined) {
    const reserved = prices.reservationPricesUsd?.[capacity.reservationType][type];
    if (reserved !== undefined) return reserved;
  }
  return prices.pricesUsd[type];
}
