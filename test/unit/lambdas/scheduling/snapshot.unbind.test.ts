import { describe, expect, it } from 'vitest';
import { Snapshot, createPodRequirements, networkLocality, Profile, snapshotFromKubernetes } from '../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from './kube-objects';

const trainer = (name: string, nodeName: string) => gpuPod(name, { gpus: 8, nodeName, labels: { job: 'x' } });

describe('Snapshot.unbind', () => {
  it('frees the pod’s resources and drops it from the pod indexes without editing lists handed out', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('a'), gpuNode('b')], [trainer('p1', 'a'), trainer('p2', 'b')]);
    const before = snapshot.podsInNamespace('default');
    expect(snapshot.unbind('uid-p1')).toBe(true);
    expect(snapshot.getNode('a')?.freeWholeGpus).toBe(8);
    expect(snapshot.pods.map((p) => p.name)).toEqual(['p2']);
    expect(snapshot.podsInNamespace('default').map((p) => p.name)).toEqual(['p2']);
    expect(before.map((p) => p.name)).toEqual(['p1', 'p2']);
    expect(snapshot.unbind('uid-p1')).toBe(false);
  });

  it('a peer that left is no longer a peer, though the scan of the old list was kept', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z2' })], [trainer('p1', 'a')]);
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: networkLocality, weight: 1 }] });
    const pod = createPodRequirements({ name: 'w', peerSelector: [{ key: 'job', operator: 'In', values: ['x'] }] });
    expect(profile.score(profile.startCycle(snapshot, pod), snapshot.nodes)[0]).toBeGreaterThan(0);
    snapshot.unbind('uid-p1');
    expect([...profile.score(profile.startCycle(snapshot, pod), snapshot.nodes)]).toEqual([0, 0]);
  });

  it('on an overlay leaves the base untouched', () => {
    const base = snapshotFromKubernetes([gpuNode('a')], [trainer('p1', 'a')]);
    const view = Snapshot.overlay(base, []);
    view.unbind('uid-p1');
    expect(view.pods).toEqual([]);
    expect(base.pods.map((p) => p.name)).toEqual(['p1']);
  });
});
