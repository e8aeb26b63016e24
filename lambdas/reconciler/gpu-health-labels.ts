import type { CoreV1Event, V1Node } from '@kubernetes/client-node';
import type { DraNodeGpus } from '../scheduling/dra-gpus';
import type { GpuHealthClass } from '../scheduling/gpu-health-reasons';
import { agentReasonClass, draTaintClass, gpuWarningOf } from '../scheduling/gpu-health-reasons';
import { GPU_HEALTH_DEGRADED, GPU_RESOURCE, NODE_ANNOTATION, NODE_LABEL } from '../scheduling/keys';

/**
 * The degraded label: the node monitoring agent records warning-level GPU
 * faults (a non-fatal XID, PCIe replays, thermal or power limits, retired
 * pages, NCCL errors) only as Warning events on the Node, and NVIDIA's DRA
 * driver marks a device with a non-fatal fault by a taint of effect None;
 * neither keeps a pod off the node. The reconciler sums them up into
 * `gpu.nvidia.com/health=degraded` and `gpu.nvidia.com/health-reasons` (what
 * and when), which the extender's GpuHealth score reads, and takes both off
 * once the node has had no such warning for the window and no such taint.
 */
export interface GpuHealthSettings {
  readonly enabled: boolean;
  /** How far back warnings count, and how long a node must be quiet before the label goes. */
  readonly windowMs: number;
  /** Node label writes per run at most (largest first: new labels before removals), the rest in later runs. */
  readonly maxWritesPerRun: number;
}

/** One kind of warning on one node, summed over its events. */
interface WarningSummary {
  readonly what: string;
  readonly class: GpuHealthClass;
  count: number;
  /** Epoch ms of the latest occurrence (or the taint's time added; NaN when it does not say). */
  last: number;
}

/** One node's label and annotation as they should be, when that differs from what it has. */
export interface GpuHealthLabelChange {
  readonly node: string;
  /** `null` removes (merge patch). */
  readonly label: string | null;
  readonly reasons: string | null;
}

export interface GpuHealthLabelPlan {
  readonly changes: readonly GpuHealthLabelChange[];
  /** Per node degraded after this run's writes, the classes of what made it so (for the outcome metrics). */
  readonly degradedClasses: ReadonlyMap<string, readonly GpuHealthClass[]>;
  /** The nodes as they will be once the changes are written, so this run's outcome already sees them. */
  readonly nodesAfter: readonly V1Node[];
}

/** Warnings named in the annotation at most; the rest are counted. */
const MAX_LISTED = 8;

/** When an event last happened: a series' last observation, else its last timestamp, else when it was first seen. */
function lastSeen(event: CoreV1Event): number {
  const times = [event.series?.lastObservedTime, event.lastTimestamp, event.eventTime, event.firstTimestamp, event.metadata?.creationTimestamp];
  for (const time of times) {
    const ms = time === undefined || time === null ? Number.NaN : new Date(time).getTime();
    if (!Number.isNaN(ms)) return ms;
  }
  return Number.NaN;
}

/** How many times it happened: a series' count, else the event's, at least 1. */
function occurrences(event: CoreV1Event): number {
  return Math.max(1, event.series?.count ?? event.count ?? 1);
}

function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The annotation's text: the latest first, `what ×count, last <time>`, at most MAX_LISTED named. */
export function reasonsText(summaries: readonly WarningSummary[]): string {
  const sorted = [...summaries].sort((a, b) => (Number.isNaN(b.last) ? -1 : b.last) - (Number.isNaN(a.last) ? -1 : a.last) || (a.what < b.what ? -1 : 1));
  const parts = sorted.slice(0, MAX_LISTED).map((s) => `${s.what}${s.count > 1 ? ` x${s.count}` : ''}${Number.isNaN(s.last) ? '' : `, last ${isoSeconds(s.last)}`}`);
  if (sorted.length > MAX_LISTED) parts.push(`and ${sorted.length - MAX_LISTED} more`);
  return parts.join('; ');
}

/** A fault repeating every minute must not rewrite the node every minute: times within this of each other read as the same. */
const REWRITE_GRAIN_MS = 15 * 60_000;

/**
 * The annotation as far as a rewrite is concerned: the kinds of warning and
 * their last times to REWRITE_GRAIN_MS, not the counts; so an annotation is
 * rewritten when a new kind appears, one drops out, or the latest of a kind
 * moves on by a grain (a Node update is paid for by every watcher).
 */
export function rewriteKey(text: string | undefined): string | undefined {
  return text
    ?.replace(/ x\d+/g, '')
    .replace(/last (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)/g, (_, time: string) => `last ${Math.floor(Date.parse(time) / REWRITE_GRAIN_MS)}`);
}

/**
 * Which nodes to label degraded and which to clear. `events` are the Warning
 * events about Nodes (any producer; only the GPU warnings count), `dra` each
 * node's GPUs in NVIDIA's ResourceSlices (read where they are what it hands out). With
 * `eventsListed` false (the event listing failed) no label is removed: no
 * data must never look like a quiet node.
 */
export function planGpuHealthLabels(
  nodes: readonly V1Node[],
  events: readonly CoreV1Event[],
  dra: ReadonlyMap<string, DraNodeGpus>,
  now: Date,
  settings: Pick<GpuHealthSettings, 'windowMs'>,
  eventsListed = true,
): GpuHealthLabelPlan {
  const since = now.getTime() - settings.windowMs;
  const byNode = new Map<string, Map<string, WarningSummary>>();
  const summaryOf = (node: string, what: string, cls: GpuHealthClass): WarningSummary => {
    let kinds = byNode.get(node);
    if (kinds === undefined) byNode.set(node, (kinds = new Map()));
    let summary = kinds.get(what);
    if (summary === undefined) kinds.set(what, (summary = { what, class: cls, count: 0, last: Number.NaN }));
    return summary;
  };
  for (const event of events) {
    if (event.involvedObject.kind !== 'Node' || event.type !== 'Warning') continue;
    const node = event.involvedObject.name;
    const warning = gpuWarningOf(event.reason ?? '', event.message ?? '');
    const last = lastSeen(event);
    if (node === undefined || warning === undefined || !(last >= since)) continue;
    const summary = summaryOf(node, warning.reason, agentReasonClass(warning.reason));
    summary.count += occurrences(event);
    summary.last = Number.isNaN(summary.last) ? last : Math.max(summary.last, last);
  }
  const changes: GpuHealthLabelChange[] = [];
  const degradedClasses = new Map<string, readonly GpuHealthClass[]>();
  const nodesAfter: V1Node[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name;
    if (name === undefined) continue;
    // A node's slices say what it hands out only where the device plugin does not (gpu-node-facts.ts).
    const fromDra = node.status?.allocatable?.[GPU_RESOURCE] === undefined ? dra.get(name) : undefined;
    for (const { device, taint } of fromDra?.warnings ?? []) {
      const value = taint.value === undefined || taint.value === '' ? '' : `=${taint.value}`;
      const summary = summaryOf(name, `DRA ${device} ${taint.key}${value} (${taint.effect})`, draTaintClass(taint.key));
      summary.count = 1;
      summary.last = taint.timeAdded === undefined ? Number.NaN : Date.parse(taint.timeAdded);
    }
    const summaries = [...(byNode.get(name)?.values() ?? [])];
    const label = node.metadata?.labels?.[NODE_LABEL.gpuHealth];
    const reasons = node.metadata?.annotations?.[NODE_ANNOTATION.gpuHealthReasons];
    let change: GpuHealthLabelChange | undefined;
    if (summaries.length > 0) {
      const text = reasonsText(summaries);
      degradedClasses.set(name, [...new Set(summaries.map((s) => s.class))]);
      if (label !== GPU_HEALTH_DEGRADED || rewriteKey(reasons) !== rewriteKey(text)) change = { node: name, label: GPU_HEALTH_DEGRADED, reasons: text };
    } else if (eventsListed && (label !== undefined || reasons !== undefined)) {
      change = { node: name, label: null, reasons: null };
    } else if (label === GPU_HEALTH_DEGRADED) {
      // Kept while the events cannot be read: what made it so is in its annotation, not here.
      degradedClasses.set(name, ['Other']);
    }
    if (change !== undefined) changes.push(change);
    nodesAfter.push(change === undefined ? node : withLabel(node, change));
  }
  return { changes, degradedClasses, nodesAfter };
}

/** The node with the change applied to a copy of its metadata. */
function withLabel(node: V1Node, change: GpuHealthLabelChange): V1Node {
  const labels = { ...node.metadata?.labels };
  const annotations = { ...node.metadata?.annotations };
  if (change.label === null) delete labels[NODE_LABEL.gpuHealth];
  else labels[NODE_LABEL.gpuHealth] = change.label;
  if (change.reasons === null) delete annotations[NODE_ANNOTATION.gpuHealthReasons];
  else annotations[NODE_ANNOTATION.gpuHealthReasons] = change.reasons;
  return { ...node, metadata: { ...node.metadata, labels, annotations } };
}
