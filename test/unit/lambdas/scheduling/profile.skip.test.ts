import { describe, expect, it } from 'vitest';
import type { ScorePlugin } from '../../../../lambdas/scheduling';
import { Profile, SKIP, createPodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { gpuNode } from './kube-objects';

const byName = (scores: Record<string, number>): ScorePlugin => ({ name: 'byName', score: (_s, _p, node) => scores[node.name] ?? 0 });

describe('Profile: a scorer that skips the pod', () => {
  it('runs no Score for it and leaves its weight out of the mean', () => {
    let scored = 0;
    const skipping: ScorePlugin = {
      name: 'skipping',
      preScore: () => SKIP,
      score: () => {
        scored++;
        return 100;
      },
    };
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: byName({ a: 80, b: 40 }), weight: 1 }, { plugin: skipping, weight: 9 }] });
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')]);
    const scores = profile.score(profile.startCycle(snapshot, createPodRequirements({ name: 'p' })), snapshot.nodes);
    expect([...scores]).toEqual([80, 40]);
    expect(scored).toBe(0);
  });

  it('gives every node 0 when all scorers skip', () => {
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: { name: 's', preScore: () => SKIP, score: () => 50 }, weight: 1 }] });
    const snapshot = snapshotFromKubernetes([gpuNode('a')]);
    expect([...profile.score(profile.startCycle(snapshot, createPodRequirements({ name: 'p' })), snapshot.nodes)]).toEqual([0]);
  });
});
