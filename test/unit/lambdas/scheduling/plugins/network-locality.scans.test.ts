// The peer scan is kept per snapshot and selector (see network-locality.ts):
// these tests pin that a kept scan never changes an answer.
import { describe, expect, it } from 'vitest';
import type { KubePod, Snapshot } from '../../../../../lambdas/scheduling';
import { networkLocality, parsePodRequirements, podInfoFromKubernetes, Profile, snapshotFromKubernetes } from '../../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from '../kube-objects';

const nodes = [gpuNode('a1', { zone: 'a' }), gpuNode('a2', { zone: 'a' }), gpuNode('b1', { zone: 'b' })];
const profile = new Profile({ name: 'locality', filters: [], scorers: [{ plugin: networkLocality, weight: 1 }] });
const peer = (name: string, nodeName: string, labels: Record<string, string> = { app: 'trainer' }) => gpuPod(name, { gpus: 1, nodeName, labels });
const wanting = (name: string, selector: string, extra: { nodeName?: string; labels?: Record<string, string> } = {}) =>
  gpuPod(name, { gpus: 1, annotations: { 'gpu.nvidia.com/peer-selector': selector }, ...extra });

function scores(snapshot: Snapshot, pod: KubePod): number[] {
  const requirements = parsePodRequirements(pod);
  return [...profile.score(profile.startCycle(snapshot, requirements), snapshot.nodes)];
}

describe('NetworkLocality peer scans', () => {
  it('answers repeated cycles on one snapshot alike, and sees pods bound after the first', () => {
    const snapshot = snapshotFromKubernetes(nodes, [peer('p1', 'a1')]);
    const pod = wanting('w', 'app=trainer');
    const first = scores(snapshot, pod);
    expect(scores(snapshot, pod)).toEqual(first);
    expect(first[0]).toBeGreaterThan(first[2] ?? 0);

    const late = podInfoFromKubernetes(peer('p2', 'b1'));
    if (late === undefined) throw new Error('test setup: p2 holds nothing');
    snapshot.bind(late);
    snapshot.bind({ ...late, uid: 'uid-p3', name: 'p3' });
    const after = scores(snapshot, pod);
    // Two peers on b1 now outweigh one on a1: a stale scan would still rank a1 first.
    expect(after[2]).toBeGreaterThan(after[0] ?? 0);
  });

  it('keeps selectors apart', () => {
    const snapshot = snapshotFromKubernetes(nodes, [peer('p1', 'a1'), peer('s1', 'b1', { app: 'server' })]);
    const trainers = scores(snapshot, wanting('w1', 'app=trainer'));
    const servers = scores(snapshot, wanting('w2', 'app=server'));
    expect(trainers[0]).toBeGreaterThan(0);
    expect(trainers[2]).toBe(0);
    expect(servers[2]).toBeGreaterThan(0);
    expect(servers[0]).toBe(0);
  });

  it('never counts a bound pod as its own peer, even after another pod filled the scan', () => {
    const self = wanting('self', 'app=trainer', { nodeName: 'b1', labels: { app: 'trainer' } });
    const snapshot = snapshotFromKubernetes(nodes, [peer('p1', 'a1'), self]);
    const other = scores(snapshot, wanting('w', 'app=trainer'));
    expect(other[2]).toBeGreaterThanOrEqual(50); // self is a peer of w, on b1
    const own = scores(snapshot, self);
    expect(own[2]).toBeLessThan(50); // but not of itself: b1 holds no other trainer
    expect(own[0]).toBeGreaterThanOrEqual(50);
  });
});
