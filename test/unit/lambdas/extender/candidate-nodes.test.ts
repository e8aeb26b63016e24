import { describe, expect, it } from 'vitest';
import type { ClusterCache } from '../../../../lambdas/cluster-state/cluster-cache';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { benchPod, boundPods, gpuNodes } from '../../../../bench/perf/extender-fixtures';
import { harness } from './router-harness';

// candidate-nodes.ts resolves NodeNames by first trying the order of the previous
// request on the same snapshot. That must only change the cost: every answer
// of a long-lived router is compared with a fresh router that never saw an
// earlier request.

const nodes = gpuNodes(60);
const pods = boundPods(nodes, 300);
const names = nodes.map((n) => (n.metadata as { name: string }).name);
const snapshot = snapshotFromKubernetes(nodes, pods);
const sharedCache: ClusterCache = { snapshot: () => Promise.resolve(snapshot) };

function freshCache(): ClusterCache {
  const own = snapshotFromKubernetes(nodes, pods);
  return { snapshot: () => Promise.resolve(own) };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const requests: { path: string; names: string[] }[] = [
  { path: '/filter', names },
  { path: '/prioritize', names: names.filter((_, i) => i % 3 !== 1) },
  { path: '/filter', names: [...names.slice(25), ...names.slice(0, 25)] },
  { path: '/prioritize', names: [...names].reverse() },
  { path: '/filter', names: shuffled(names, 7) },
  { path: '/prioritize', names: ['not-a-node', ...names.slice(0, 10), 'ip-10-0-0-99.ec2.internal.gone', ...names.slice(40)] },
  { path: '/filter', names: [names[3] as string, names[3] as string, ...names.slice(0, 12), 'missing'] },
  { path: '/prioritize', names: shuffled(names, 11).slice(0, 20) },
  { path: '/filter', names },
];

describe('NodeNames resolution does not depend on earlier requests', () => {
  it('a router that answered other orders first gives the same bodies as a fresh one', async () => {
    const shared = harness({ cache: sharedCache });
    for (const { path, names: requested } of requests) {
      const body = { Pod: benchPod(), NodeNames: requested };
      const reference = await harness({ cache: freshCache() }).post(path, body);
      const answer = await shared.post(path, body);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(reference.body);
    }
    const decisions = shared.observer.decisions;
    expect(decisions).toHaveLength(requests.length);
    // The filter rejects some nodes and keeps others, so both paths are exercised.
    expect(decisions[0]?.summary.kept).toBeGreaterThan(0);
    expect(decisions[0]?.summary.failed).toBeGreaterThan(0);
  });
});
