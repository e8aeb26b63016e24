import type { CoreV1Event, V1Node, V1Pod } from '@kubernetes/client-node';

/** The well-known label of a node's EC2 instance type (set by the kubelet, Karpenter and EKS). */
export const INSTANCE_TYPE_LABEL = 'node.kubernetes.io/instance-type';

/**
 * How long a Karpenter `Nominated` event says "capacity is coming for this
 * pod": Karpenter nominates a pod on every provisioning pass that plans a
 * node for it (a NodeClaim being launched, or a node it believes fits), and
 * the event's last time moves with each; a launch takes minutes.
 */
export const NOMINATION_FRESH_MS = 10 * 60_000;

export interface CapacitySettings {
  /** The reconciler's schedule: nodes created within one interval before the run count as launched by it. */
  readonly runIntervalSeconds: number;
  /** USD per hour per instance type (gpu-prices.ts). */
  readonly pricesUsd: Readonly<Record<string, number>>;
}

/** What GPU capacity costs and does this run. */
export interface CapacityOutcome {
  /** GPU nodes listed (the GPU outcome's nodes). */
  readonly gpuNodes: number;
  /** Of them, created within the last run interval: launched since the previous run. */
  readonly launched: number;
  /** Of them, being deleted (a deletionTimestamp: drained by Karpenter or an operator). */
  readonly terminating: number;
  /** Pending GPU pods for which Karpenter has planned capacity (a fresh `Nominated` event): waiting for a node to come up. */
  readonly waitingForCapacity: number;
  /** The other pending GPU pods: nothing is coming for them, they wait for room on the nodes there are (or for a NodePool that can fit them). */
  readonly waitingForFit: number;
  /** Sum of the GPU nodes' hourly prices, USD. */
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

/** `namespace/name` of each pod Karpenter nominated within NOMINATION_FRESH_MS of `now`. */
export function freshlyNominated(events: readonly CoreV1Event[], now: Date): Set<string> {
  const pods = new Set<string>();
  for (const event of events) {
    if (event.reason !== 'Nominated' || event.involvedObject?.kind !== 'Pod' || !fromKarpenter(event)) continue;
    const at = lastSeen(event);
    if (!Number.isFinite(at) || now.getTime() - at > NOMINATION_FRESH_MS) continue;
    pods.add(`${event.involvedObject.namespace ?? ''}/${event.involvedObject.name ?? ''}`);
  }
  return pods;
}

/**
 * The capacity numbers of one run, from its listings: the GPU nodes (those
 * the GPU outcome counted), the pending GPU pods, and Karpenter's
 * `Nominated` events. Launched and terminating come from the nodes' own
 * timestamps; the dashboard derives terminated nodes from launched and the
 * change in the node count.
 */
export function capacityOutcome(
  gpuNodes: readonly V1Node[],
  pendingGpuPods: readonly V1Pod[],
  nominations: readonly CoreV1Event[],
  settings: CapacitySettings,
  now: Date,
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
    const type = node.metadata?.labels?.[INSTANCE_TYPE_LABEL] ?? '';
    const price = settings.pricesUsd[type];
    if (price === undefined) {
      unpriced += 1;
      if (unpricedTypes.size < UNPRICED_EXAMPLES) unpricedTypes.add(type || '(no instance-type label)');
    } else hourlyCostUsd += price;
  }
  const nominated = freshlyNominated(nominations, now);
  const waitingForCapacity = pendingGpuPods.filter((pod) => nominated.has(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`)).length;
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
