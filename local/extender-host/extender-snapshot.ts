// What a test waits on before a decision of the extender must see a change it
// just made: the extender's own cluster cache, refreshed until it shows the
// change. Not the cache's TTL: a snapshot taken after the TTL still reads only
// what the API server's watch has delivered by then, which a busy machine
// delays; a refresh is also what a request naming an unknown node triggers.
import type { CoreV1Api } from '@kubernetes/client-node';
import type { Extender } from '../../lambdas/extender/extender-handler';
import type { Snapshot } from '../../lambdas/scheduling';
import { TtlClusterCache } from '../../lambdas/cluster-state/cluster-cache';
import { waitFor } from '../common/wait';

/**
 * Refreshes the extender's cluster cache until its snapshot satisfies
 * `holds`. The next decision is then made on that snapshot or a later one,
 * which only adds newer changes.
 */
export async function waitForExtenderSnapshot(extender: Extender, describe: string, holds: (snapshot: Snapshot) => boolean, timeoutMs = 60_000): Promise<void> {
  const { cache } = await extender.deps();
  if (!cache) throw new Error('the extender has no cluster cache (started without cluster access)');
  await waitFor(`the extender's cluster cache to ${describe}`, async () => (holds(await cache.snapshot({ maxAgeMs: 0 })) ? true : undefined), {
    timeoutMs,
    intervalMs: 100,
  });
}

/** Waits until the extender's snapshot shows every node of the cluster and every pod bound in `namespace`, as the API server lists them now. */
export async function waitForExtenderToCatchUp(extender: Extender, core: CoreV1Api, namespace: string): Promise<void> {
  const [nodes, pods] = await Promise.all([core.listNode(), core.listNamespacedPod({ namespace })]);
  const nodeNames = nodes.items.map((node) => node.metadata?.name ?? '');
  const finished = new Set(['Succeeded', 'Failed']);
  const bound = pods.items.filter((pod) => pod.spec?.nodeName && !finished.has(pod.status?.phase ?? '')).map((pod) => pod.metadata?.name ?? '');
  await waitForExtenderSnapshot(extender, `show the ${nodeNames.length} nodes and the ${bound.length} pods bound in ${namespace}`, (snapshot) => {
    const seen = new Set(snapshot.podsInNamespace(namespace).map((pod) => pod.name));
    return nodeNames.every((name) => snapshot.getNode(name) !== undefined) && bound.every((name) => seen.has(name));
  });
}

/**
 * Waits until the snapshot the extender serves is older than `ttlMs` (its
 * EXTENDER_CACHE_TTL), without refreshing it: the next request then refreshes
 * it first, e.g. while a fault of the API server is on.
 */
export async function waitForStaleSnapshot(extender: Extender, ttlMs: number, timeoutMs = 60_000): Promise<void> {
  const { cache } = await extender.deps();
  if (!(cache instanceof TtlClusterCache)) throw new Error('the extender has no TTL cluster cache (started without cluster access)');
  await waitFor(`the extender's snapshot to be older than its ${ttlMs} ms TTL`, () => ((cache.ageMs() ?? 0) > ttlMs ? true : undefined), { timeoutMs, intervalMs: 100 });
}
