import { GPU_MILLI } from '../scheduling/keys';
import { nodeCapacity } from '../scheduling/node-capacity';
import type { NodeInfo } from '../scheduling/node-info';
import type { Snapshot } from '../scheduling/snapshot';
import type { NodePrices } from './gpu-prices';
import { nodeHourlyPriceUsd } from './gpu-prices';

/** Reserved GPUs of some nodes, in GPUs (a quarter share is 0.25). */
export interface ReservedGpus {
  readonly nodes: number;
  readonly allocatable: number;
  readonly idle: number;
  /** The idle GPUs' share of their nodes' hourly prices, USD: paid for, unused. Unpriced nodes add nothing. */
  readonly idleHourlyCostUsd: number;
}

/** What reserved capacity is doing this run. */
export interface ReservedCapacityOutcome {
  readonly total: ReservedGpus;
  /** Per canonical GPU model; `unknown` where no labeller named one. Only models with reserved GPUs. */
  readonly byModel: Readonly<Record<string, ReservedGpus>>;
  /**
   * The idle reserved GPUs when GPU pods wait for new capacity (Karpenter is
   * launching for them), else 0: capacity bought twice, worth an alarm.
   */
  readonly idleWhilePodsWaitForCapacity: number;
  /** Reserved GPU nodes without a price (left out of the cost). */
  readonly unpriced: number;
}

interface Totals {
  nodes: number;
  allocatableMilli: number;
  idleMilli: number;
  idleCost: number;
}

const UNKNOWN_MODEL = 'unknown';
const round2 = (value: number): number => Math.round(value * 100) / 100;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

function finish(t: Totals): ReservedGpus {
  return { nodes: t.nodes, allocatable: round2(t.allocatableMilli / GPU_MILLI), idle: round2(t.idleMilli / GPU_MILLI), idleHourlyCostUsd: round3(t.idleCost) };
}

function add(into: Totals, node: NodeInfo, hourlyUsd: number | undefined): void {
  into.nodes++;
  into.allocatableMilli += node.gpuCount * GPU_MILLI;
  into.idleMilli += node.freeGpuMilli;
  if (hourlyUsd !== undefined) into.idleCost += (hourlyUsd * node.freeGpuMilli) / (node.gpuCount * GPU_MILLI);
}

/**
 * Reserved GPUs from the run's snapshot (the same nodes and bound pods the
 * GPU outcome counts): a node is reserved when Karpenter, an EKS node group
 * or our labeler says so (lambdas/scheduling/node-capacity.ts). Idle is what
 * no bound pod or ResourceClaim holds, priced at the node's rate
 * (reservation prices first, gpu-prices.ts) over its GPUs.
 */
export function reservedCapacityOutcome(snapshot: Snapshot, prices: NodePrices, podsWaitingForCapacity: number): ReservedCapacityOutcome {
  const all: Totals = { nodes: 0, allocatableMilli: 0, idleMilli: 0, idleCost: 0 };
  const perModel = new Map<string, Totals>();
  let unpriced = 0;
  for (const node of snapshot.nodes) {
    if (node.gpuCount === 0 || node.invalid !== undefined || nodeCapacity(node.labels).type !== 'reserved') continue;
    const hourlyUsd = nodeHourlyPriceUsd(node.labels, prices);
    if (hourlyUsd === undefined) unpriced++;
    const model = node.gpuModelName === '' ? UNKNOWN_MODEL : node.gpuModelName;
    let totals = perModel.get(model);
    if (totals === undefined) perModel.set(model, (totals = { nodes: 0, allocatableMilli: 0, idleMilli: 0, idleCost: 0 }));
    add(all, node, hourlyUsd);
    add(totals, node, hourlyUsd);
  }
  const byModel: Record<string, ReservedGpus> = {};
  for (const [model, totals] of [...perModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) byModel[model] = finish(totals);
  const total = finish(all);
  return { total, byModel, idleWhilePodsWaitForCapacity: podsWaitingForCapacity > 0 ? total.idle : 0, unpriced };
}
