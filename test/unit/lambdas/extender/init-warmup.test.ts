import { describe, expect, it } from 'vitest';
import type { ClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { createExtender } from '../../../../lambdas/extender/extender-handler';
import { warmAtInit, warmsAtInit } from '../../../../lambdas/extender/init-warmup';
import { Snapshot } from '../../../../lambdas/scheduling';

const PROVISIONED = { AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency', POWERTOOLS_LOG_LEVEL: 'SILENT' };

/** Counts the snapshots asked for; the Kubernetes-backed cache's listing is covered by the source's and the e2e tests. */
function countingCache(fail = false): ClusterCache & { calls: number } {
  const cache = {
    calls: 0,
    snapshot() {
      cache.calls += 1;
      return fail ? Promise.reject(new Error('API server unreachable')) : Promise.resolve(new Snapshot([], []));
    },
  };
  return cache;
}

describe('warmsAtInit', () => {
  it('warms only a container Lambda initialises ahead of traffic', () => {
    expect(warmsAtInit({ AWS_LAMBDA_INITIALIZATION_TYPE: 'provisioned-concurrency' })).toBe(true);
    expect(warmsAtInit({ AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand' })).toBe(false);
    expect(warmsAtInit({ AWS_LAMBDA_INITIALIZATION_TYPE: 'snap-start' })).toBe(false);
    expect(warmsAtInit({})).toBe(false);
  });
});

describe('warmAtInit', () => {
  it('fills the cluster cache before the first request under provisioned concurrency', async () => {
    const cache = countingCache();
    await warmAtInit(createExtender({ env: PROVISIONED, cache }), PROVISIONED);
    expect(cache.calls).toBe(1);
  });

  it('leaves an on-demand container lazy: nothing is wired or listed until a request', async () => {
    const cache = countingCache();
    const env = { AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand', POWERTOOLS_LOG_LEVEL: 'SILENT' };
    await warmAtInit(createExtender({ env, cache }), env);
    expect(cache.calls).toBe(0);
  });

  it('does not fail INIT when the listing or the configuration fails; the first request tries again', async () => {
    const cache = countingCache(true);
    const extender = createExtender({ env: PROVISIONED, cache });
    await expect(warmAtInit(extender, PROVISIONED)).resolves.toBeUndefined();
    const badEnv = { ...PROVISIONED, EXTENDER_CACHE_TTL: 'soon' };
    await expect(warmAtInit(createExtender({ env: badEnv, cache }), badEnv)).resolves.toBeUndefined();
    const answer = await extender.route({ method: 'POST', path: '/filter', body: '{"Pod":{},"NodeNames":["n1"]}' });
    expect(cache.calls).toBe(2);
    expect(JSON.stringify(answer.body)).toContain('API server unreachable');
  });
});
