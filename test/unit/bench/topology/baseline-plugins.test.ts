import { describe, expect, it } from 'vitest';
import { createLayerAffinity, zoneLocality } from '../../../../bench/topology/baseline-plugins';
import { runPlugin } from '../../lambdas/scheduling/cycle';
import { gpuPod } from '../../lambdas/scheduling/kube-objects';
import { topologyNode } from '../../lambdas/scheduling/topology-nodes';
import { Profile, parsePodRequirements, snapshotFromKubernetes } from '../../../../lambdas/scheduling';

const nodes = [topologyNode('p', ['t', 'm', 'b1']), topologyNode('same', ['t', 'm', 'b1']), topologyNode('other', ['t', 'm', 'b2']), topologyNode('far', ['t', 'm', 'b3'], { zone: 'z2' })];
const worker = gpuPod('w', { gpus: 8, annotations: { 'gpu.nvidia.com/peer-selector': 'job=x' } });
const peers = [gpuPod('p0', { gpus: 8, nodeName: 'p', labels: { job: 'x' } })];

describe('baseline plugins of the topology benchmark', () => {
  it('zone-only locality: node 50..100, zone 10..50, else 0', () => {
    const run = runPlugin(zoneLocality, nodes, worker, peers);
    expect(run.score('p')).toBe(100);
    expect(run.score('same')).toBe(50);
    expect(run.score('other')).toBe(50);
    expect(run.score('far')).toBe(0);
  });

  it('layer-3 pod affinity: the domain with peers 100 after min–max scaling, every other 0', () => {
    const profile = new Profile({ name: 't', filters: [], scorers: [{ plugin: createLayerAffinity('topology.k8s.aws/network-node-layer-3'), weight: 1 }] });
    const snapshot = snapshotFromKubernetes(nodes, peers);
    const scores = profile.score(profile.startCycle(snapshot, parsePodRequirements(worker)), snapshot.nodes);
    expect([...scores]).toEqual([100, 100, 0, 0]);
  });
});
