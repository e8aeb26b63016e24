import { GPU_MILLI } from './keys';
import type { NodeInfo } from './node-info';
import { createStrandedMeasure } from './fragmentation/fragmentation-model';
import { snapshotShapes } from './fragmentation/snapshot-shapes';
import type { WorkloadShape } from './fragmentation/workload-shapes';
import type { Snapshot } from './snapshot';

/** GPU counts of a set of nodes, in GPUs (a 0.25 share is 0.25). */
export interface GpuOutcome {
  readonly nodes: number;
  /** Physical GPUs (or MIG `single` devices) of the nodes. */
  readonly allocatable: number;
  /** Held by bound pods. */
  readonly allocated: number;
  /** Free: allocatable − allocated. */
  readonly idle: number;
  /** The part of idle the workload's typical shapes cannot use (FGD's fragment). */
  readonly stranded: number;
}

export interface ClusterOutcome extends GpuOutcome {
  /** Per GPU model (canonical name; "unknown" where no labeller named one). */
  readonly byModel: Readonly<Record<string, GpuOutcome>>;
  /** The shapes `stranded` was measured against. */
  readonly shapes: readonly WorkloadShape[];
}

const UNKNOWN_MODEL = 'unknown';

interface Totals {
  nodes: number;
  allocatable: number;
  free: number;
  stranded: number;
}

const round2 = (value: number): number => Math.round(value * 100) / 100;

function finish(t: Totals): GpuOutcome {
  const allocatable = t.allocatable / GPU_MILLI;
  const idle = t.free / GPU_MILLI;
  return { nodes: t.nodes, allocatable: round2(allocatable), allocated: round2(allocatable - idle), idle: round2(idle), stranded: round2(t.stranded / GPU_MILLI) };
}

/**
 * How well the cluster's GPUs are used right now: allocatable, allocated,
 * idle and stranded GPUs, overall and per model, with stranded measured
 * against the typical shapes of the bound GPU pods (the same measure the
 * Fragmentation score and the trace benchmark use). Nodes without GPUs, or
 * whose GPU data is invalid, are left out; so are MIG `mixed` devices, which
 * the model counts per profile rather than as GPUs (a node partitioned that
 * way entirely has no whole-GPU devices to report).
 */
export function clusterOutcome(snapshot: Snapshot, shapes: readonly WorkloadShape[] = snapshotShapes(snapshot)): ClusterOutcome {
  const stranded = createStrandedMeasure(shapes);
  const all: Totals = { nodes: 0, allocatable: 0, free: 0, stranded: 0 };
  const perModel = new Map<string, Totals>();
  for (const node of snapshot.nodes) {
    if (node.gpuCount === 0 || node.invalid !== undefined) continue;
    const model = node.gpuModelName === '' ? UNKNOWN_MODEL : node.gpuModelName;
    let totals = perModel.get(model);
    if (totals === undefined) perModel.set(model, (totals = { nodes: 0, allocatable: 0, free: 0, stranded: 0 }));
    add(all, node, stranded);
    add(totals, node, stranded);
  }
  const byModel: Record<string, GpuOutcome> = {};
  for (const [model, totals] of [...perModel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) byModel[model] = finish(totals);
  return { ...finish(all), byModel, shapes };
}

function add(into: Totals, node: NodeInfo, stranded: (node: NodeInfo) => number): void {
  into.nodes++;
  into.allocatable += node.gpuCount * GPU_MILLI;
  into.free += node.freeGpuMilli;
  into.stranded += stranded(node);
}
