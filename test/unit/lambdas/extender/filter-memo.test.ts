import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import type { ClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { FilterMemo } from '../../../../lambdas/extender/filter-memo';
import type { RouterResponse } from '../../../../lambdas/extender/router';
import type { Snapshot } from '../../../../lambdas/scheduling';
import { createExtenderProfile, parsePodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import type { ClusterState } from './router-harness';
import { fixtureJson, harness } from './router-harness';

type Json = Record<string, unknown>;

const cluster = fixtureJson<ClusterState>('cluster-state.json');
const FIRST = 'ip-10-0-1-10.ec2.internal';
const SECOND = 'ip-10-0-2-20.ec2.internal';

/** The fixture's A100 pod asking for `gpus` GPUs (1: both A100 nodes fit), at a given resourceVersion. */
function podArgs(gpus: number, resourceVersion = '184077', uid: string | null = '7d3e5c1a-1111-4222-8333-6c6c6d2d6674'): Json {
  const args = structuredClone(fixtureJson<Json>('extender-args-node-names.json'));
  const pod = args.Pod as { metadata: Json; spec: { containers: { resources: { limits: Json; requests: Json } }[] } };
  pod.metadata.resourceVersion = resourceVersion;
  if (uid === null) delete pod.metadata.uid;
  else pod.metadata.uid = uid;
  for (const c of pod.spec.containers) c.resources.limits['nvidia.com/gpu'] = c.resources.requests['nvidia.com/gpu'] = String(gpus);
  return args;
}

/** The cluster with one more pod taking the first node's last free GPU. */
function withFirstNodeFull(): ClusterState {
  const filler = structuredClone(cluster.pods[0]) as { metadata: Json; spec: { nodeName: string; containers: { resources: { limits: Json; requests: Json } }[] } };
  filler.metadata.name = 'filler';
  filler.metadata.uid = '9a000000-0000-4000-8000-0000000000ff';
  filler.spec.nodeName = FIRST;
  for (const c of filler.spec.containers) c.resources.limits['nvidia.com/gpu'] = c.resources.requests['nvidia.com/gpu'] = '1';
  return { nodes: cluster.nodes, pods: [...cluster.pods, filler] };
}

/** A cache whose snapshot the test replaces, as a refresh does. */
function swappableCache(state: ClusterState): { cache: ClusterCache; swap: (next: ClusterState) => void } {
  let current: Snapshot = snapshotFromKubernetes(state.nodes, state.pods);
  return { cache: { snapshot: () => Promise.resolve(current) }, swap: (next) => (current = snapshotFromKubernetes(next.nodes, next.pods)) };
}

/** A router whose profile counts filter passes (one per verb that judged the nodes itself). */
function counted(cache: ClusterCache) {
  const profile = createExtenderProfile();
  // /filter judges with filterGrouped, a /prioritize that judges again with filter.
  const filter = vi.spyOn(profile, 'filter');
  const filterGrouped = vi.spyOn(profile, 'filterGrouped');
  return { ...harness({ cache, profile }), filterPasses: () => filter.mock.calls.length + filterGrouped.mock.calls.length };
}

/** What an extender that never saw the filter answers: the reference for every reuse. */
async function freshPrioritize(state: ClusterState, args: Json): Promise<RouterResponse> {
  return (await freshDecision(state, args)).response;
}

async function freshDecision(state: ClusterState, args: Json) {
  const h = counted(swappableCache(state).cache);
  const response = await h.post('/prioritize', args);
  return { response, summary: h.observer.decisions[0]?.summary };
}

const keptBy = (response: RouterResponse): string[] => (response.body as { NodeNames: string[] }).NodeNames;

describe('prioritize after its filter', () => {
  it('takes over the filter verdicts for the same pod version, snapshot and kept nodes, answering what a fresh extender answers', async () => {
    const h = counted(swappableCache(cluster).cache);
    const kept = keptBy(await h.post('/filter', podArgs(1)));
    expect(kept).toEqual([FIRST, SECOND]);
    const reused = await h.post('/prioritize', { ...podArgs(1), NodeNames: kept });
    expect(h.filterPasses()).toBe(1);

    const fresh = await freshDecision(cluster, { ...podArgs(1), NodeNames: kept });
    expect(reused).toEqual(fresh.response);
    // The decision log's summary too, with every plugin's score.
    expect(h.observer.decisions[1]?.summary).toEqual(fresh.summary);
    expect(Object.keys(fresh.summary?.ranking?.best.plugins ?? {})).toEqual(['GpuScore', 'NetworkLocality', 'Fragmentation']);
  });

  it('judges again when the pod changed (new resourceVersion): a node the new version does not fit scores 0', async () => {
    const h = counted(swappableCache(cluster).cache);
    const kept = keptBy(await h.post('/filter', podArgs(1)));
    // The same pod, updated to ask for 2 GPUs: the first node has one free.
    const changed = { ...podArgs(2, '184078'), NodeNames: kept };
    const answer = await h.post('/prioritize', changed);
    expect(h.filterPasses()).toBe(2);
    expect(answer).toEqual(await freshPrioritize(cluster, changed));
    expect(answer.body).toContainEqual({ Host: FIRST, Score: 0 });
  });

  it('judges again on a new snapshot: a node filled since the filter scores 0', async () => {
    const { cache, swap } = swappableCache(cluster);
    const h = counted(cache);
    const kept = keptBy(await h.post('/filter', podArgs(1)));
    swap(withFirstNodeFull());
    const args = { ...podArgs(1), NodeNames: kept };
    const answer = await h.post('/prioritize', args);
    expect(h.filterPasses()).toBe(2);
    expect(answer).toEqual(await freshPrioritize(withFirstNodeFull(), args));
    expect(answer.body).toContainEqual({ Host: FIRST, Score: 0 });
  });

  it('judges again when the request names other nodes than the filter kept (a subset, another order, an extra node)', async () => {
    for (const names of [[SECOND], [SECOND, FIRST], [FIRST, SECOND, 'ip-10-0-1-30.ec2.internal']]) {
      const h = counted(swappableCache(cluster).cache);
      await h.post('/filter', podArgs(1));
      const args = { ...podArgs(1), NodeNames: names };
      const answer = await h.post('/prioritize', args);
      expect(h.filterPasses()).toBe(2);
      expect(answer).toEqual(await freshPrioritize(cluster, args));
    }
  });

  it('never reuses for a pod without a UID, nor twice for one filter (a retried prioritize judges again)', async () => {
    const anonymous = counted(swappableCache(cluster).cache);
    const kept = keptBy(await anonymous.post('/filter', podArgs(1, '184077', null)));
    await anonymous.post('/prioritize', { ...podArgs(1, '184077', null), NodeNames: kept });
    expect(anonymous.filterPasses()).toBe(2);

    const retried = counted(swappableCache(cluster).cache);
    await retried.post('/filter', podArgs(1));
    const args = { ...podArgs(1), NodeNames: kept };
    const first = await retried.post('/prioritize', args);
    const second = await retried.post('/prioritize', args);
    expect(retried.filterPasses()).toBe(2);
    expect(second).toEqual(first);
  });
});

describe('FilterMemo', () => {
  it('does not keep a replaced snapshot alive (the cache dropped it: only the memo could hold it)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const memo = new FilterMemo();
    const pod = podArgs(1).Pod as Json;
    const ref = ((): WeakRef<Snapshot> => {
      const snapshot = snapshotFromKubernetes(cluster.nodes, cluster.pods);
      memo.remember(pod, snapshot, { state: createExtenderProfile().startCycle(snapshot, parsePodRequirements(pod)), feasible: [...snapshot.nodes] });
      return new WeakRef(snapshot);
    })();
    // A WeakRef's target survives the job that created it; collect after it.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(ref.deref()).toBeUndefined();
    // And nothing is served for a snapshot it never saw.
    const other = snapshotFromKubernetes(cluster.nodes, cluster.pods);
    expect(await memo.take(pod, [FIRST, SECOND], () => Promise.resolve(other))).toBeUndefined();
  });
});
