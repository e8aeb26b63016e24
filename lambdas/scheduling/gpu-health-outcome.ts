import type { GpuHealthClass } from './gpu-health-reasons';
import type { NodeHealth } from './node-health';
import { HEALTHY, describeCondition, failingClass } from './node-health';
import type { NodeInfo } from './node-info';
import type { Snapshot } from './snapshot';

/** Unhealthy and degraded GPUs of one model, or of one class. */
export interface GpuHealthCount<K extends string> {
  /** A canonical model name (`unknown` where no labeller named one, as in cluster-outcome.ts), or a class. */
  readonly key: K;
  readonly unhealthy: number;
  readonly degraded: number;
}

/** What the cluster's GPU health looks like now. */
export interface GpuHealthOutcome {
  /** GPUs that take no pod: every GPU of a failing node, and the GPUs a node withholds (allocatable short of its labels, DRA devices tainted NoSchedule). */
  readonly unhealthy: number;
  /** GPUs of degraded nodes that still take pods (networking down counts here too). */
  readonly degraded: number;
  /** The same per model, sorted by model. */
  readonly byModel: readonly GpuHealthCount<string>[];
  /** The same per class, sorted by class; a node degraded for two kinds of reason counts under both. */
  readonly byClass: readonly GpuHealthCount<GpuHealthClass>[];
  /** Nodes whose AcceleratedHardwareReady is False. */
  readonly failingNodes: number;
  /** Seconds since the earliest of them turned False (its lastTransitionTime); 0 when none is failing or none says. */
  readonly oldestFailingSeconds: number;
  /** The failing nodes with their condition (describeCondition), for a log line that names them. */
  readonly failing: readonly { readonly node: string; readonly condition: string }[];
  /** GPU pods bound to degraded nodes. */
  readonly podsOnDegradedNodes: number;
  /** Failing, degraded or network-less nodes: pods there should be the first to go on a scale-down. */
  readonly avoidedNodes: ReadonlySet<string>;
}

const UNKNOWN_MODEL = 'unknown';

/**
 * Counts unhealthy and degraded GPUs by model and class. `labelClasses`
 * gives, for a node the reconciler labels degraded, the classes of what made
 * it so (the label alone says only "degraded": without them it counts as
 * `Other`).
 */
export function gpuHealthOutcome(
  snapshot: Snapshot,
  /** Epoch ms: the failing nodes' age is measured against it. */
  now: number,
  labelClasses: (node: string) => readonly GpuHealthClass[] | undefined = () => undefined,
): GpuHealthOutcome {
  const models = new Tally<string>();
  const classes = new Tally<GpuHealthClass>();
  let unhealthy = 0;
  let degraded = 0;
  let failingNodes = 0;
  let oldestFailingSince = Number.POSITIVE_INFINITY;
  const failing: { node: string; condition: string }[] = [];
  let podsOnDegradedNodes = 0;
  const avoidedNodes = new Set<string>();
  for (const node of snapshot.nodes) {
    const health = node.health;
    if (health === HEALTHY || node.invalid !== undefined) continue;
    const model = node.gpuModelName === '' ? UNKNOWN_MODEL : node.gpuModelName;
    const withheld = health.unhealthy.reduce((sum, u) => sum + u.gpus, 0);
    if (health.failing !== undefined) {
      const all = node.gpuCount + withheld;
      failingNodes++;
      avoidedNodes.add(node.name);
      unhealthy += all;
      models.add(model, 'unhealthy', all);
      classes.add(failingClass(health.failing), 'unhealthy', all);
      failing.push({ node: node.name, condition: describeCondition(health.failing) });
      const since = health.failing.since === undefined ? Number.NaN : Date.parse(health.failing.since);
      if (since < oldestFailingSince) oldestFailingSince = since;
      continue;
    }
    unhealthy += withheld;
    models.add(model, 'unhealthy', withheld);
    for (const u of health.unhealthy) classes.add(u.class, 'unhealthy', u.gpus);
    const why = degradedClasses(node, health, labelClasses);
    if (why.length === 0) continue;
    avoidedNodes.add(node.name);
    degraded += node.gpuCount;
    models.add(model, 'degraded', node.gpuCount);
    for (const cls of why) classes.add(cls, 'degraded', node.gpuCount);
    podsOnDegradedNodes += gpuPods(node);
  }
  const oldestFailingSeconds = Number.isFinite(oldestFailingSince) ? Math.max(0, Math.round((now - oldestFailingSince) / 1000)) : 0;
  return { unhealthy, degraded, byModel: models.sorted(), byClass: classes.sorted(), failingNodes, oldestFailingSeconds, failing, podsOnDegradedNodes, avoidedNodes };
}

/** Unhealthy and degraded GPUs per key; keys with no GPU are not kept. */
class Tally<K extends string> {
  private readonly counts = new Map<K, { key: K; unhealthy: number; degraded: number }>();

  add(key: K, field: 'unhealthy' | 'degraded', gpus: number): void {
    if (gpus <= 0) return;
    let entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, (entry = { key, unhealthy: 0, degraded: 0 }));
    entry[field] += gpus;
  }

  sorted(): GpuHealthCount<K>[] {
    return [...this.counts.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

function degradedClasses(node: NodeInfo, health: NodeHealth, labelClasses: (node: string) => readonly GpuHealthClass[] | undefined): GpuHealthClass[] {
  const classes = new Set<GpuHealthClass>();
  for (const reason of health.degraded) {
    if (reason.source === 'label') for (const cls of labelClasses(node.name) ?? ['Other']) classes.add(cls);
    else classes.add(reason.class);
  }
  if (health.networkFailing !== undefined) classes.add('Network');
  return [...classes];
}

function gpuPods(node: NodeInfo): number {
  let n = 0;
  for (const pod of node.pods) if (pod.demand.gpuCount > 0) n++;
  return n;
}
