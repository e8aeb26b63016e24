import { describe, expect, it } from 'vitest';
import { TtlClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { createExtender } from '../../../../lambdas/extender/extender-handler';
import { Snapshot, NodeInfo } from '../../../../lambdas/scheduling';
import { waitForExtenderSnapshot, waitForStaleSnapshot } from '../../../../local/extender-host/extender-snapshot';

/** A cluster that gains a node at each listing. */
function growingCluster() {
  let listings = 0;
  const source = {
    load: () => {
      listings++;
      return Promise.resolve(new Snapshot(Array.from({ length: listings }, (_, i) => new NodeInfo({ name: `node-${i}`, gpuCount: 0 }))));
    },
  };
  return { source, listings: () => listings };
}

describe('waiting on the extender\'s cluster cache', () => {
  it('refreshes the snapshot until it shows what the test waits for, however long its TTL', async () => {
    const cluster = growingCluster();
    const extender = createExtender({ env: {}, cache: new TtlClusterCache(cluster.source, { ttlMs: 3_600_000 }) });
    await waitForExtenderSnapshot(extender, 'show node-2', (snapshot) => snapshot.getNode('node-2') !== undefined);
    expect(cluster.listings()).toBe(3);
  });

  it('waits for the snapshot to pass its TTL without refreshing it', async () => {
    const cluster = growingCluster();
    const cache = new TtlClusterCache(cluster.source, { ttlMs: 50 });
    const extender = createExtender({ env: {}, cache });
    await cache.snapshot();
    await waitForStaleSnapshot(extender, 50);
    expect(cache.ageMs()).toBeGreaterThan(50);
    expect(cluster.listings()).toBe(1);
  });

  it('says so when the extender has no cluster cache', async () => {
    const extender = createExtender({ env: {} });
    await expect(waitForExtenderSnapshot(extender, 'show anything', () => true)).rejects.toThrow(/no cluster cache/);
    await expect(waitForStaleSnapshot(extender, 50)).rejects.toThrow(/no TTL cluster cache/);
  });
});
