import { describe, expect, it } from 'vitest';
import { TtlClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { ANSWER_MARGIN_MS, callBudgetMs } from '../../../../lambdas/extender/call-budget';
import type { Snapshot } from '../../../../lambdas/scheduling';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import type { ClusterState } from './router-harness';
import { fixture, fixtureJson, harness } from './router-harness';

/** A cluster whose listing finishes only when the test says so, counting how often it was started. */
function heldListing() {
  const state = fixtureJson<ClusterState>('cluster-state.json');
  let release: (() => void) | undefined;
  let loads = 0;
  const cache = new TtlClusterCache(
    {
      load: () => {
        loads += 1;
        return new Promise<Snapshot>((resolve) => {
          release = () => resolve(snapshotFromKubernetes(state.nodes, state.pods));
        });
      },
    },
    { ttlMs: 60_000 },
  );
  return {
    cache,
    loads: () => loads,
    finish: () => {
      if (release === undefined) throw new Error('no listing started');
      release();
    },
  };
}

const NODE_NAMES_ARGS = fixture('extender-args-node-names.json');

describe('a call whose cluster listing outlives its budget (a cold instance near its Lambda timeout)', () => {
  it('answers 503 before the budget ends, keeps the listing running, and the next call decides on it without listing again', async () => {
    const listing = heldListing();
    const { router, observer } = harness({ cache: listing.cache });

    const late = await router({ method: 'POST', path: '/filter', body: NODE_NAMES_ARGS, budgetMs: 20 });
    expect(late.status).toBe(503);
    expect((late.body as { Error: string }).Error).toMatch(/^cluster cache unavailable: the cluster listing did not finish within this call's 20 ms/);
    expect(observer.failures).toMatchObject([{ verb: 'filter', status: 503 }]);

    listing.finish();
    await listing.cache.snapshot();
    const next = await router({ method: 'POST', path: '/filter', body: NODE_NAMES_ARGS, budgetMs: 20 });
    expect(next.status).toBe(200);
    expect((next.body as { NodeNames: string[] }).NodeNames.length).toBeGreaterThan(0);
    expect(listing.loads()).toBe(1);
  });

  it('a full-Nodes call decides from the nodes it was sent, with a warning, instead of waiting', async () => {
    const listing = heldListing();
    const { router, observer } = harness({ cache: listing.cache });
    const reply = await router({ method: 'POST', path: '/filter', body: fixture('extender-args-nodes.json'), budgetMs: 0 });
    expect(reply.status).toBe(200);
    expect(observer.warnings).toContain('cluster cache unavailable; deciding from the request nodes alone');
    listing.finish();
  });

  it('a snapshot already at hand is used even with no budget left', async () => {
    const listing = heldListing();
    const { router } = harness({ cache: listing.cache });
    const waiting = listing.cache.snapshot();
    listing.finish();
    await waiting;
    const reply = await router({ method: 'POST', path: '/filter', body: NODE_NAMES_ARGS, budgetMs: 0 });
    expect(reply.status).toBe(200);
  });

  it('without a budget (a local host) the call waits for the listing', async () => {
    const listing = heldListing();
    const { router } = harness({ cache: listing.cache });
    const pending = router({ method: 'POST', path: '/filter', body: NODE_NAMES_ARGS });
    // The listing starts inside the call; finish it once it has.
    await expect.poll(() => listing.loads()).toBe(1);
    listing.finish();
    expect((await pending).status).toBe(200);
  });
});

describe('callBudgetMs', () => {
  it('keeps the answer margin back from the Lambda\'s remaining time, never below zero', () => {
    expect(callBudgetMs(10_000)).toBe(10_000 - ANSWER_MARGIN_MS);
    expect(callBudgetMs(ANSWER_MARGIN_MS / 2)).toBe(0);
  });
});
