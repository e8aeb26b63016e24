import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../../lambdas/extender/cluster-cache';
import { TtlClusterCache } from '../../../lambdas/extender/cluster-cache';

/** A fake source (pure TTL logic under test; the Kubernetes-backed source runs in the e2e suite). */
class FakeSource {
  calls = 0;
  failNext = false;
  private pending: (() => void)[] = [];
  gpus = 8;

  async list(): Promise<ClusterState> {
    this.calls++;
    await new Promise<void>((resolve) => this.pending.push(resolve));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('list failed');
    }
    return { nodes: [{ metadata: { name: 'n' }, status: { allocatable: { 'nvidia.com/gpu': String(this.gpus) } } }], pods: [] };
  }

  release(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
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

  it('serves the snapshot until the TTL passes, then refreshes', async () => {
    const source = new FakeSource();
    let clock = 0;
    const cache = new TtlClusterCache(source, { ttlMs: 1000, now: () => clock });
    const first = cache.snapshot();
    await settle();
    source.release();
    const s1 = await first;
    clock = 999;
    expect(await cache.snapshot()).toBe(s1);
    expect(source.calls).toBe(1);
    expect(cache.ageMs()).toBe(999);
    clock = 1000;
    source.gpus = 4;
    const second = cache.snapshot();
    await settle();
    source.release();
    const s2 = await second;
    expect(s2).not.toBe(s1);
    expect(s2.getNode('n')?.gpuCount).toBe(4);
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
    const c = cache.snapshot();
    await settle();
    source.release();
    expect((await c).getNode('n')).toBeDefined();
    expect(source.calls).toBe(2);
  });

  it('TTL 0 refreshes on every request', async () => {
    const source = new FakeSource();
    const cache = new TtlClusterCache(source, { ttlMs: 0, now: () => 0 });
    for (let i = 0; i < 3; i++) {
      const pending = cache.snapshot();
      await settle();
      source.release();
      await pending;
    }
    expect(source.calls).toBe(3);
  });
});
