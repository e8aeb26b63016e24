import { describe, expect, it } from 'vitest';
import { createCandidateResolver, NOMINATED_POD_MAX_AGE_MS, snapshotFreshnessFor } from '../../../../lambdas/extender/candidate-nodes';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling';

// A pod kube-scheduler nominated (it preempted) is judged on a snapshot
// refreshed for the call, so victims already gone are not seen again
// (test/e2e/kube-api-faults-preemption.test.ts shows the double preemption otherwise).

const node = { metadata: { name: 'a' }, status: { allocatable: { cpu: '8', 'nvidia.com/gpu': '8' } } };
const snapshot = snapshotFromKubernetes([node], []);
const noWarnings = (): void => {
  throw new Error('unexpected warning');
};

describe('snapshotFreshnessFor', () => {
  it('asks a refreshed snapshot for a nominated pod only', () => {
    expect(snapshotFreshnessFor({ status: { nominatedNodeName: 'a' } })).toEqual({ maxAgeMs: NOMINATED_POD_MAX_AGE_MS });
    expect(snapshotFreshnessFor({ status: { nominatedNodeName: '' } })).toBeUndefined();
    expect(snapshotFreshnessFor({ status: {} })).toBeUndefined();
    expect(snapshotFreshnessFor({ status: 'nonsense' })).toBeUndefined();
    expect(snapshotFreshnessFor({})).toBeUndefined();
  });
});

describe('createCandidateResolver with a freshness', () => {
  it('passes it to the cache in both modes, and nothing without one', async () => {
    const asked: (number | undefined)[] = [];
    const resolve = createCandidateResolver({
      snapshot: (options) => {
        asked.push(options?.maxAgeMs);
        return Promise.resolve(snapshot);
      },
    });
    const fresh = snapshotFreshnessFor({ status: { nominatedNodeName: 'a' } });
    expect((await resolve({ mode: 'NodeNames', names: ['a'] }, noWarnings, [], fresh)).ok).toBe(true);
    expect((await resolve({ mode: 'Nodes', items: [node] }, noWarnings, [], fresh)).ok).toBe(true);
    expect((await resolve({ mode: 'NodeNames', names: ['a'] }, noWarnings, [])).ok).toBe(true);
    expect(asked).toEqual([0, 0, undefined]);
  });
});
