// The simulator's two paths on the same generated dumps: the fast path (the
// gpu-scheduler profile and the extender modelled in process) must place
// every pod where the real kube-scheduler with the extender (--exact) does,
// and fail the same pods with the same reasons. Where totals tie,
// kube-scheduler picks at random: the fast path must report that tie with
// the real pick among the tied nodes, and then follows it so that later
// pods see the same cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDump } from '../../bench/simulate/generated-dump';
import { failedSchedulingReasons } from '../../lambdas/scheduling/failed-scheduling';
import { e2eHarness } from './support/e2e-context';
import { waitFor } from '../../local/common/wait';
import { simulateExact } from '../../simulator/exact';
import { simulate } from '../../simulator/simulate';

const harness = e2eHarness();
const SEEDS = [101, 202, 303, 404, 505];
/** Seeds whose dump also carries GPU health signals (withHealthSignals): the GpuHealth filter and score on both paths. */
const HEALTH_SEEDS = [606];

/**
 * The dump with the signals docs/health.md reads on its first GPU nodes: one
 * failing (AcceleratedHardwareReady=False), one labelled degraded by the
 * reconciler, one whose GPU condition is Unknown, one short of a GPU in
 * allocatable.
 */
function withHealthSignals(nodes: Record<string, unknown>[]): Record<string, unknown>[] {
  type RawNode = { metadata: { labels?: Record<string, string> }; status: { allocatable?: Record<string, string>; conditions?: unknown[] } };
  let changed = 0;
  return nodes.map((raw) => {
    const node = structuredClone(raw) as RawNode;
    const gpus = Number(node.status.allocatable?.['nvidia.com/gpu'] ?? '0');
    if (gpus === 0 || changed > 3) return node as Record<string, unknown>;
    const condition = (status: string, reason: string, message: string) => ({ type: 'AcceleratedHardwareReady', status, reason, message, lastTransitionTime: '2026-12-01T10:00:00Z' });
    if (changed === 0) node.status.conditions = [...(node.status.conditions ?? []), condition('False', 'NvidiaXID79Error', 'GPU has fallen off the bus')];
    if (changed === 1) node.metadata.labels = { ...node.metadata.labels, 'gpu.nvidia.com/health': 'degraded' };
    if (changed === 2) node.status.conditions = [...(node.status.conditions ?? []), condition('Unknown', 'NodeStatusNeverUpdated', 'the agent stopped reporting')];
    if (changed === 3 && gpus > 1 && node.status.allocatable) node.status.allocatable['nvidia.com/gpu'] = String(gpus - 1);
    changed++;
    return node as Record<string, unknown>;
  });
}
const created: string[] = [];
/** Nodes each in-tree filter removed on the fast path, over every dump: the dumps must exercise them all. */
const removed: Record<string, number> = {};

/** The part of a FailedScheduling message about placement, without kube-scheduler's preemption attempt. */
function placementPart(message: string): string {
  return message.split(/\.\s+(?:no new claims to deallocate, )?preemption:/)[0]?.replace(/\.$/, '') ?? message;
}

/**
 * Removes one dump before the next: its pods first (a pending gpu-scheduler pod left in a
 * terminating namespace would be scheduled onto the next dump's nodes, which have the same
 * names), then its namespaces and nodes, and waits until the namespaces are gone.
 */
async function cleanUp(): Promise<void> {
  const namespaces = created.splice(0);
  for (const namespace of namespaces) await harness.core.deleteCollectionNamespacedPod({ namespace, gracePeriodSeconds: 0 }).catch(() => undefined);
  for (const name of namespaces) await harness.core.deleteNamespace({ name }).catch(() => undefined);
  await harness.resetCluster();
  await waitFor('the namespaces of the last dump gone', async () => {
    const left = (await harness.core.listNamespace()).items.filter((ns) => namespaces.includes(ns.metadata?.name ?? ''));
    return left.length === 0 ? true : undefined;
  }, { timeoutMs: 120_000 });
}

describe('simulate: the fast path places as the real gpu-scheduler does', () => {
  beforeAll(async () => {
    await harness.resetCluster();
  });
  afterAll(cleanUp);

  for (const seed of [...SEEDS, ...HEALTH_SEEDS]) {
    const health = HEALTH_SEEDS.includes(seed);
    it(`generated dump, seed ${seed}${health ? ' with GPU health signals' : ''}: same placements and reasons, ties reported with the real pick among them`, async () => {
      // Under 100 nodes kube-scheduler evaluates every node (percentageOfNodesToScore), as the fast path does.
      await cleanUp();
      const namespaces = [`ml-${seed}`, `web-${seed}`];
      const generated = generateDump({ nodes: 30, pods: 160, pendingShare: 0.25, seed, namespaces });
      const dump = health ? { ...generated, nodes: withHealthSignals(generated.nodes) } : generated;
      created.push(...namespaces);
      const exact = await simulateExact(dump.nodes, dump.pods, {}, harness.info.controlPlane, { explain: true });
      const fastFirst = simulate(dump.nodes, dump.pods);
      for (const [plugin, nodes] of Object.entries(fastFirst.removedByScheduler ?? {})) removed[plugin] = (removed[plugin] ?? 0) + nodes;
      // kube-scheduler goes on without an extender that failed or timed out: such a run does not show the extender's choices.
      expect(exact.warnings).toBeUndefined();
      const exactNode = new Map(exact.placed.map((p) => [p.pod, p.node]));
      const fast = simulate(dump.nodes, dump.pods, {}, { explain: true, breakTie: (pod, tied) => exactNode.get(pod) ?? (tied[0] as string) });
      // The first pod, in queue order, the paths disagree on, with both sides' reasons: every later one may follow from it.
      const first = fast.placed.find((p) => exactNode.get(p.pod) !== p.node);
      if (first !== undefined) console.log(`exact placements, seed ${seed}: ${JSON.stringify(Object.fromEntries(exactNode))}`);
      const firstExact = first && exact.placed.find((p) => p.pod === first.pod);
      expect(first && { fast: first, exact: firstExact ?? exact.unschedulable.find((u) => u.pod === first.pod) }).toBeUndefined();

      const fastNode = new Map(fast.placed.map((p) => [p.pod, p.node]));
      // The fast path follows the real pick only within a tie it found itself (simulate's breakTie), so equal
      // placements also mean every tie it reported held the real scheduler's pick.
      expect(fastNode).toEqual(exactNode);
      expect(fast.unschedulable.map((u) => u.pod).sort()).toEqual(exact.unschedulable.map((u) => u.pod).sort());
      // The same reasons, both from the pod's own turn (the exact path keeps kube-scheduler's message from
      // before the next pod is created; a retry would report a fuller cluster). Node counts are not
      // compared: the turn's message may already be a quick retry's (an event kube-scheduler could not rule
      // out arrived during its cycle).
      const reasons = (result: typeof fast) => new Map(result.unschedulable.map((u) => [u.pod, failedSchedulingReasons(placementPart(u.message)).map((r) => r.text).sort()]));
      expect(reasons(fast)).toEqual(reasons(exact));
      // The generated dump exercises what the fast path models, and the paths agree on it.
      expect(fast.placed.length).toBeGreaterThan(10);
      expect(fast.unschedulable.length).toBeGreaterThan(0);
      expect(fast.skipped.otherScheduler['default-scheduler']).toBeGreaterThan(0);
      if (health) {
        // The failing node takes no GPU pod on either path.
        // The failing node takes no pending GPU pod on either path (pods bound in the dump stay where they are).
        const failing = (dump.nodes.find((n) => JSON.stringify(n).includes('NvidiaXID79Error'))?.metadata as { name?: string } | undefined)?.name;
        expect(failing).toBeDefined();
        expect(fast.placed.filter((p) => p.node === failing && p.devices.length > 0)).toEqual([]);
      }
      console.log(`seed ${seed}: ${fast.placed.length} placed (${fast.placed.filter((p) => p.tiedWith.length > 0).length} on a tie), ${fast.unschedulable.length} unschedulable`);
    }, 15 * 60_000);
  }

  it('the dumps made every modelled in-tree filter remove nodes', () => {
    for (const plugin of ['NodeUnschedulable', 'TaintToleration', 'NodeAffinity', 'NodePorts', 'NodeResourcesFit', 'PodTopologySpread', 'InterPodAffinity']) {
      expect(removed[plugin], plugin).toBeGreaterThan(0);
    }
  });
});
