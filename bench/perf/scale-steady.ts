// A warm extender container under steady scheduling: every tick, one GPU pod
// is filtered and prioritized over every node as kube-scheduler asks the
// extender (NodeNames mode, one call at a time), created bound to the best
// node, and one of the cluster's original pods is deleted, so the cluster
// keeps its size while pods change at a steady rate.
import { randomUUID } from 'node:crypto';
import { BENCH_NAMESPACE, benchPod } from './extender-fixtures';
import type { PopulatedCluster } from './scale-cluster';
import type { ExtenderContainer } from './scale-container';
import type { KubeWriter } from './scale-kube-writer';
import type { TimingSummary } from './stats';
import { summarise } from './stats';

export interface SteadyOptions {
  readonly seconds: number;
  /** Pods scheduled (and as many deleted) per second. */
  readonly ratePerSecond: number;
}

export interface SteadyResult extends SteadyOptions {
  readonly elapsedMs: number;
  /** Pods filtered, prioritized and created bound (one tick each). */
  readonly scheduled: number;
  readonly deleted: number;
  /** Filter answers other than 200, or with no node kept. */
  readonly failedFilters: number;
  /** Ticks that started late because the previous one outlived its slot. */
  readonly lateTicks: number;
  readonly filterMs: TimingSummary;
  readonly prioritizeMs: TimingSummary;
}

interface FilterAnswer {
  readonly NodeNames?: readonly string[] | null;
}

interface HostPriority {
  readonly Host: string;
  readonly Score: number;
}

function podArgs(name: string, nodeNames: readonly string[] | null): { pod: Record<string, unknown>; body: string } {
  const template = benchPod();
  const pod = { ...template, metadata: { ...(template.metadata as Record<string, unknown>), name, uid: randomUUID() } };
  return { pod, body: JSON.stringify({ Pod: pod, Nodes: null, NodeNames: nodeNames }) };
}

function bestHost(body: string, fallback: string): string {
  const priorities = JSON.parse(body) as readonly HostPriority[];
  let best: HostPriority | undefined;
  for (const p of priorities) if (best === undefined || p.Score > best.Score) best = p;
  return best?.Host ?? fallback;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSteady(container: ExtenderContainer, writer: KubeWriter, cluster: PopulatedCluster, options: SteadyOptions): Promise<SteadyResult> {
  const nodeNames = cluster.nodes.map((n) => (n.metadata as { name: string }).name);
  const filterMs: number[] = [];
  const prioritizeMs: number[] = [];
  const deletions: Promise<void>[] = [];
  let failedFilters = 0;
  let lateTicks = 0;
  let scheduled = 0;
  const slotMs = 1000 / options.ratePerSecond;
  const started = performance.now();
  const endAt = started + options.seconds * 1000;
  for (let tick = 0; ; tick++) {
    const slot = started + tick * slotMs;
    if (slot >= endAt) break;
    const wait = slot - performance.now();
    if (wait > 0) await sleep(wait);
    else if (tick > 0) lateTicks++;
    const victim = cluster.pods[tick % cluster.pods.length];
    if (victim) deletions.push(writer.remove(`/api/v1/namespaces/${victim.namespace}/pods/${victim.name}`));

    const name = `scale-churn-${tick}`;
    const filter = await container.post('/filter', podArgs(name, nodeNames).body);
    filterMs.push(filter.ms);
    const kept = filter.status === 200 ? ((JSON.parse(filter.body) as FilterAnswer).NodeNames ?? []) : [];
    if (kept.length === 0) {
      failedFilters++;
      continue;
    }
    const { pod, body } = podArgs(name, kept);
    const prioritize = await container.post('/prioritize', body);
    prioritizeMs.push(prioritize.ms);
    const host = prioritize.status === 200 ? bestHost(prioritize.body, kept[0] ?? '') : (kept[0] ?? '');
    // What the bind makes of it: the pod, now with spec.nodeName (no status: nothing runs it).
    const { uid: _uid, ...metadata } = pod.metadata as Record<string, unknown>;
    await writer.create(`/api/v1/namespaces/${BENCH_NAMESPACE}/pods`, { ...pod, metadata, spec: { ...(pod.spec as Record<string, unknown>), nodeName: host }, status: undefined });
    scheduled++;
  }
  await Promise.all(deletions);
  if (scheduled === 0) throw new Error(`no pod was scheduled in ${options.seconds} s: every filter failed or kept no node`);
  return {
    ...options,
    elapsedMs: performance.now() - started,
    scheduled,
    deleted: deletions.length,
    failedFilters,
    lateTicks,
    filterMs: summarise(filterMs),
    prioritizeMs: summarise(prioritizeMs),
  };
}
