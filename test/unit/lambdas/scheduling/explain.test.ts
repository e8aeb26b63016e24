import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { explainChoice } from '../../../../lambdas/scheduling/explain';
import { createExtenderProfile } from '../../../../lambdas/scheduling/profiles';
import { selectNode } from '../../../../lambdas/scheduling/profile';
import { parsePodRequirements } from '../../../../lambdas/scheduling/pod-requirements';
import { snapshotFromKubernetes } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from './kube-objects';

describe('Profile.explainScores and explainChoice', () => {
  const profile = createExtenderProfile();

  it('the per-plugin parts add up to score(), and the best node is the one selectNode picks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gpus: fc.constantFrom(1, 2, 4, 8), used: fc.nat(8), util: fc.option(fc.integer({ min: 0, max: 100 })) }), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(1, 2, 4),
        (specs, want) => {
          const nodes = specs.map((s, i) => gpuNode(`n${i}`, { gpus: s.gpus, ...(s.util === null ? {} : { utilization: String(s.util) }) }));
          const bound = specs.flatMap((s, i) => (Math.min(s.used, s.gpus) > 0 ? [gpuPod(`b${i}`, { gpus: Math.min(s.used, s.gpus), nodeName: `n${i}` })] : []));
          const snapshot = snapshotFromKubernetes(nodes, bound);
          const pod = parsePodRequirements(gpuPod('p', { gpus: want }));
          const state = profile.startCycle(snapshot, pod);
          const { feasible } = profile.filter(state, snapshot.nodes);
          const plain = profile.score(profile.startCycle(snapshot, pod), feasible);
          const breakdown = profile.explainScores(state, feasible);
          expect([...breakdown.total]).toEqual([...plain]);
          const weights = breakdown.plugins.reduce((sum, p) => sum + p.weight, 0);
          feasible.forEach((_, i) => {
            const mean = breakdown.plugins.reduce((sum, p) => sum + (p.scores[i] ?? 0) * p.weight, 0) / weights;
            expect(mean).toBeCloseTo(plain[i] ?? 0, 9);
          });
          const choice = explainChoice(feasible, breakdown);
          expect(choice?.best.node).toBe(selectNode(profile, snapshot, pod).node?.name);
          if (choice?.runnerUp) expect(choice.best.total).toBeGreaterThanOrEqual(choice.runnerUp.total);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('calls equal totals a tie and names the runner-up', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('a', { gpus: 8 }), gpuNode('b', { gpus: 8 })]);
    const pod = parsePodRequirements(gpuPod('p', { gpus: 2 }));
    const state = profile.startCycle(snapshot, pod);
    const choice = explainChoice(snapshot.nodes, profile.explainScores(state, snapshot.nodes));
    expect(choice).toMatchObject({ best: { node: 'a' }, runnerUp: { node: 'b' }, margin: 0, tie: true });
    expect(Object.keys(choice?.best.plugins ?? {})).toEqual(expect.arrayContaining(['GpuScore', 'Fragmentation']));
  });

  it('one feasible node has no runner-up and is no tie; no node, no explanation', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('only', { gpus: 4 })]);
    const state = profile.startCycle(snapshot, parsePodRequirements(gpuPod('p', { gpus: 1 })));
    expect(explainChoice(snapshot.nodes, profile.explainScores(state, snapshot.nodes))).toMatchObject({ best: { node: 'only' }, margin: 0, tie: false });
    expect(explainChoice([], profile.explainScores(state, []))).toBeUndefined();
  });
});
