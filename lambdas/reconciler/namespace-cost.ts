import { OTHER_NAMESPACES } from '../observability/metric-catalog';
import { GPU_MILLI } from '../scheduling/keys';
import type { Snapshot } from '../scheduling/snapshot';
import type { NodePrices } from './gpu-prices';
import { nodeHourlyPriceUsd } from './gpu-prices';

/** Namespaces reported by name unless COST_TOP_NAMESPACES says otherwise; the rest are summed into `(other)`. */
export const DEFAULT_COST_TOP_NAMESPACES = 10;

/** One namespace's GPUs now and what they cost an hour. */
export interface NamespaceCost {
  /** A namespace, or `(other)` for the namespaces below the top N, summed. */
  readonly namespace: string;
  /** GPUs its bound pods hold (a quarter share is 0.25). */
  readonly gpus: number;
  /** Their share of their nodes' hourly prices, USD. */
  readonly hourlyCostUsd: number;
}

/** Cost per team this run. */
export interface NamespaceCostOutcome {
  /** The top N namespaces by GPUs (then by cost, then by name), then `(other)` when more hold GPUs. */
  readonly namespaces: readonly NamespaceCost[];
  /** Namespaces holding GPUs, all of them. */
  readonly namespaceCount: number;
  /** The idle GPUs' share of the priced GPU nodes' hourly prices, USD: attributed to no namespace. */
  readonly idleHourlyCostUsd: number;
}

const round2 = (value: number): number => Math.round(value * 100) / 100;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * GPUs and dollars per namespace from the run's snapshot: each bound pod
 * holds its GPUs (whole, or its share of one, in the node's device terms:
 * a time-sliced replica is a share) and pays that part of its node's hourly
 * price (price ÷ the node's GPUs per GPU held). The GPUs no pod holds are
 * nobody's: their part is the idle cost. MIG `mixed` slices are not GPUs to
 * the model and count for no one, nor do GPUs only a ResourceClaim holds
 * (no pod to charge them to). Unpriced nodes add GPUs and no dollars.
 */
export function namespaceCostOutcome(snapshot: Snapshot, prices: NodePrices, topN: number = DEFAULT_COST_TOP_NAMESPACES): NamespaceCostOutcome {
  const byNamespace = new Map<string, { gpus: number; cost: number }>();
  let idleCost = 0;
  for (const node of snapshot.nodes) {
    if (node.gpuCount === 0 || node.invalid !== undefined) continue;
    const hourlyUsd = nodeHourlyPriceUsd(node.labels, prices);
    const perGpu = hourlyUsd === undefined ? 0 : hourlyUsd / node.gpuCount;
    idleCost += (perGpu * node.freeGpuMilli) / GPU_MILLI;
    for (const pod of node.pods) {
      const gpus = (node.deviceCountOf(pod.demand) * Math.min(node.deviceMilliOf(pod.demand), GPU_MILLI)) / GPU_MILLI;
      if (!(gpus > 0)) continue;
      let entry = byNamespace.get(pod.namespace);
      if (entry === undefined) byNamespace.set(pod.namespace, (entry = { gpus: 0, cost: 0 }));
      entry.gpus += gpus;
      entry.cost += gpus * perGpu;
    }
  }
  const ranked = [...byNamespace].sort(([a, x], [b, y]) => y.gpus - x.gpus || y.cost - x.cost || (a < b ? -1 : a > b ? 1 : 0));
  const keep = Math.max(0, Math.floor(topN));
  const namespaces: NamespaceCost[] = ranked.slice(0, keep).map(([namespace, { gpus, cost }]) => ({ namespace, gpus: round2(gpus), hourlyCostUsd: round3(cost) }));
  const rest = ranked.slice(keep);
  if (rest.length > 0) {
    namespaces.push({
      namespace: OTHER_NAMESPACES,
      gpus: round2(rest.reduce((sum, [, entry]) => sum + entry.gpus, 0)),
      hourlyCostUsd: round3(rest.reduce((sum, [, entry]) => sum + entry.cost, 0)),
    });
  }
  return { namespaces, namespaceCount: byNamespace.size, idleHourlyCostUsd: round3(idleCost) };
}
