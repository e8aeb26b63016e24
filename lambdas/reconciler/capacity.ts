import type { CoreV1Event, V1Node, V1Pod } from '@kubernetes/client-node';
import type { NodePrices } from './gpu-prices';
import { INSTANCE_TYPE_LABEL, nodeHourlyPriceUsd } from './gpu-prices';

/**
 * How long a Karpenter `Nominated` event says "capacity is coming for this
 * pod": Karpenter nominates a pod on every provisioning pass that plans a
 * node for it (a NodeClaim being launched, or a node it believes fits), and
 * the event's last time moves with each; a launch takes minutes.
 */
export const NOMINATION_FRESH_MS = 10 * 60_000;

export interface CapacitySettings extends NodePrices {
  /** The reconciler's schedule: nodes created within one interval before the run count as launched by it. */
  readonly runIntervalSeconds: number;
  /** Namespaces reported by name in the cost per team; the rest are `(other)` (namespace-cost.ts). Default DEFAULT_COST_TOP_NAMESPACES. */
  readonly costTopNamespaces?: number;
}

/** What GPU capacity costs and does this run. */
export interface CapacityOutcome {
  /** GPU nodes listed (the GPU outcome's nodes). */
  readonly gpuNodes: number;
  /** Of them, created within the last run interval: launched since the previous run. */
  readonly launched: number;
  /** Of them, being deleted (a deletionTimestamp: drained by Karpenter or an operator). */
  readonly terminating: number;
  /**
   * Pending GPU pods Karpenter is bringing a node up for: its latest fresh
   * `Nominated` event names a NodeClaim being launched, or a node that is
   * not Ready yet or not among the listed nodes (a node that just joined
   * has no GPU labels yet).
   */
  readonly waitingForCapacity: number;
  /**
   * The other pending GPU pods: nothing is coming for them. Either Karpenter
   * nominated them for a Ready node (it believes the pod fits there, the
   * scheduler and extender do not), or it has no plan for them (no NodePool
   * fits, limits reached), or Karpenter does not run.
   */
  readonly waitingForFit: number;
  /** Sum of the GPU nodes' hourly prices (reserved nodes at their reservation's rate where one is set), USD. */
  readonly hourlyCostUsd: number;
  /** GPU nodes whose instance type has no price (left out of the cost). */
  readonly unpriced: number;
  /** A few of the unpriced types, for the log. */
  readonly unpricedTypes: readonly string[];
}

const UNPRICED_EXAMPLES = 5;

function time(value: Date | string | undefined | null): number {
  if (value === undefined || value === null) return Number.NaN;
  return (value instanceof Date ? value : new Date(value)).getTime();
}

/** When the event last happened: a series' last observation, else lastTimestamp, else eventTime or creation. */
function lastSeen(event: CoreV1Event): number {
  for (const candidate of [event.series?.lastObservedTime, event.lastTimestamp, event.eventTime, event.metadata?.creationTimestamp]) {
    const at = time(candidate as Date | string | undefined);
    if (Number.isFinite(at)) return at;
  }
  return Number.NaN;
}

/** Whether Karpenter wrote the event (core events carry source.component, events.k8s.io ones reportingComponent). */
export function fromKarpenter(event: CoreV1Event): boolean {
  return event.source?.component === 'karpenter' || event.reportingComponent === 'karpenter';
}

/** Where Karpenter's latest fresh nomination of each pod (`namespace/name`) points: the node it names, if any. */
export interface Nomination {
  /** `node/<name>` in the message: an existing node Karpenter believes fits; absent while only a NodeClaim is named (a launch). */
  readonly nodeName: string | undefined;
}

const NOMINATED_NODE = /(?:^|[\s,:])node\/([^\s,]+)/;

/** Each pod's latest Karpenter `Nominated` event within NOMINATION_FRESH_MS of `now` ("Pod should schedule on: nodeclaim/a, node/b"). */
export function freshNominations(events: readonly CoreV1Event[], now: Date): Map<string, Nomination> {
  const latest = new Map<string, { at: number; nomination: Nomination }>();
  for (const event of events) {
    if (event.reason !== 'Nominated' || event.involvedObject?.kind !== 'Pod' || !fromKarpenter(event)) continue;
    const at = lastSeen(event);
    if (!Number.isFinite(at) || now.getTime() - at > NOMINATION_FRESH_MS) continue;
    const key = `${event.involvedObject.namespace ?? ''}/${event.involvedObject.name ?? ''}`;
    const previous = latest.get(key);
    if (previous !== undefined && previous.at > at) continue;
    latest.set(key, { at, nomination: { nodeName: NOMINATED_NODE.exec(event.message ?? '')?.[1] } });
  }
  return new Map([...latest].map(([key, { nomination }]) => [key, nomination]));
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/**
 * The capacity numbers of one run, from its listings: the GPU nodes (those
 * the GPU outcome counted), the pending GPU pods, Karpenter's `Nominated`
 * events and every listed node (which of them are Ready). Launched and terminating come from the nodes' own
 * timestamps; the dashboard derives terminated nodes from launched and the
 * change in the node count.
 */
export function capacityOutcome(
  gpuNodes: readonly V1Node[],
  pendingGpuPods: readonly V1Pod[],
  nominations: readonly CoreV1Event[],
  settings: CapacitySettings,
  now: Date,
  listedNodes: readonly V1Node[] = gpuNodes,
): CapacityOutcome {
  const windowStart = now.getTime() - settings.runIntervalSeconds * 1000;
  let launched = 0;
  let terminating = 0;
  let hourlyCostUsd = 0;
  let unpriced = 0;
  const unpricedTypes = new Set<string>();
  for (const node of gpuNodes) {
    const created = time(node.metadata?.creationTimestamp);
    if (Number.isFinite(created) && created > windowStart && created <= now.getTime()) launched += 1;
    if (node.metadata?.deletionTimestamp) terminating += 1;
    const labels = node.metadata?.labels ?? {};
    const type = labels[INSTANCE_TYPE_LABEL] ?? '';
    const price = nodeHourlyPriceUsd(labels, settings);
    if (price === undefined) {
      unpriced += 1;
      if (unpricedTypes.size < UNPRICED_EXAMPLES) unpricedTypes.add(type || '(no instance-type label)');
    } else hourlyCostUsd += price;
  }
  const nominated = freshNominations(nominations, now);
  const readyNodes = new Set(listedNodes.filter(isReady).map((node) => node.metadata?.name ?? ''));
  const waitingForCapacity = pendingGpuPods.filter((pod) => {
    const nomination = nominated.get(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
    return nomination !== undefined && (nomination.nodeName === undefined || !readyNodes.has(nomination.nodeName));
  }).length;
  return {
    gpuNodes: gpuNodes.length,
    launched,
    terminating,
    waitingForCapacity,
    waitingForFit: pendingGpuPods.length - waitingForCapacity,
    hourlyCostUsd: Math.round(hourlyCostUsd * 1000) / 1000,
    unpriced,
    unpricedTypes: [...unpricedTypes],
  };
}
