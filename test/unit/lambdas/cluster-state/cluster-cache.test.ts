import { describe, expect, it } from 'vitest';
import { TtlClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import type { Snapshot } from '../../../../lambdas/scheduling';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';

/** A fake source whose loads finish when the test says so (pure TTL logic under test; the Kubernetes-backed source runs in the e2e suite). */
class FakeSource {
  calls = 0;
  failNext = false;
  gpus = 8;
  private pending: (() => void)[] = [];

  async load(): Promise<Snapshot> {
    this.calls++;
    const gpus = this.gpus;
    await new Promise<void>((resolve) => this.pending.push(resolve));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('list failed');
    }
    return snapshotFromKubernetes([{ metadata: { name: 'n' }, status: { allocatable: { 'nvidia.com/gpu': String(gpus) } } }]);
  }

  release(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

async function loaded(cache: TtlClusterCache, source: FakeSource): Promise<Snapshot> {
  const pending = cache.snapshot();
  await settle();
  source.release();
  return pending;
}

describe('TtlClusterCache', () => {
  it('single-flight: concurrent requests during a refresh share one listing', async () => {
    const source = new FakeSource();
    const cache = new TtlClusterCache(source, { ttlMs: 1000, now: () => 0 });
    const a = cache.snapshot();
    const b = cache.snapshot();
    await settle();
    expect(source.calls).toBe(1);
    source.release();
    const [sa, sb] = await Promise.all([a, b]);
    expect(sa).toBe(sb);
    expect(sa.getNode('n')?.gpuCount).toBe(8);
  });

  it('serves the snapshot until the TTL passes, then waits for a fresh one', async () => {
    const source = new FakeSource();
    let clock = 0;
    const cache = new TtlClusterCache(source, { ttlMs: 1000, now: () => clock });
    const s1 = await loaded(cache, source);
    clock = 999;
    expect(await cache.snapshot()).toBe(s1);
    expect(source.calls).toBe(1);
    expect(cache.ageMs()).toBe(999);
    clock = 1000;
    source.gpus = 4;
    const s2 = await loaded(cache, source);
    expect(s2).not.toBe(s1);
    expect(s2.getNode('n')?.gpuCount).toBe(4);
    expect(source.calls).toBe(2);
  });

  it('maxAgeMs refreshes a snapshot older than asked (single-flight), even inside the TTL, and never serves it stale', async () => {
    const source = new FakeSource();
    let clock = 0;
    const cache = new TtlClusterCache(source, { ttlMs: 5000, maxStaleMs: 60_000, now: () => clock });
    const s1 = await loaded(cache, source);
    clock = 500;
    expect(await cache.snapshot({ maxAgeMs: 1000 })).toBe(s1);
    expect(source.calls).toBe(1);
    clock = 1500;
    source.gpus = 2;
    const a = cache.snapshot({ maxAgeMs: 1000 });
    const b = cache.snapshot({ maxAgeMs: 1000 });
    await settle();
    source.release();
    const [sa, sb] = await Promise.all([a, b]);
    expect(sa).toBe(sb);
    expect(sa.getNode('n')?.gpuCount).toBe(2);
    expect(source.calls).toBe(2);
  });

  it('a failed refresh is not cached: every waiter sees the error, the next call retries', async () => {
    const source = new FakeSource();
    const cache = new TtlClusterCache(source, { ttlMs: 1000, now: () => 0 });
    source.failNext = true;
    const a = cache.snapshot();
    const b = cache.snapshot();
    await settle();
    source.release();
    await expect(a).rejects.toThrow('list failed');
    await expect(b).rejects.toThrow('list failed');
    expect((await loaded(cache, source)).getNode('n')).toBeDefined();
    expect(source.calls).toBe(2);
  });

  it('TTL 0 refreshes on every request', async () => {
    const source = new FakeSource();
    const cache = new TtlClusterCache(source, { ttlMs: 0, now: () => 0 });
    for (let i = 0; i < 3; i++) await loaded(cache, source);
    expect(source.calls).toBe(3);
  });

  it('stale-while-revalidate: within maxStale the old snapshot is served at once and one refresh runs behind', async () => {
    const source = new FakeSource();
    let clock = 0;
    const errors: unknown[] = [];
    const cache = new TtlClusterCache(source, { ttlMs: 1000, maxStaleMs: 5000, now: () => clock, onBackgroundError: (e) => errors.push(e) });
    const s1 = await loaded(cache, source);
    clock = 3000;
    source.gpus = 2;
    expect(await cache.snapshot()).toBe(s1);
    expect(await cache.snapshot()).toBe(s1);
    expect(source.calls).toBe(2);
    source.release();
    await settle();
    const s2 = await cache.snapshot();
    expect(s2.getNode('n')?.gpuCount).toBe(2);

    // A failed background refresh is reported and leaves the old snapshot in place.
    clock = 3000 + 1500;
    source.failNext = true;
    expect(await cache.snapshot()).toBe(s2);
    source.release();
    await settle();
    expect(errors).toHaveLength(1);

    // Past ttl + maxStale the caller waits again.
    clock = 3000 + 6001;
    const waiting = cache.snapshot();
    let done = false;
    void waiting.then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    source.release();
    expect((await waiting).getNode('n')?.gpuCount).toBe(2);
  });
});
