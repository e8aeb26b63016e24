import { describe, expect, it } from 'vitest';
import { createExtenderProfile } from '../../../lambdas/scheduling/profiles';
import { snapshotFromKubernetes } from '../../../lambdas/scheduling/snapshot';
import { ClusterState, parseSchedNode } from '../../../simulator/in-tree/cluster';
import { parseSchedPod } from '../../../simulator/in-tree/pod-spec';
import { failedSchedulingMessage, scheduleOne } from '../../../simulator/kube-scheduler-cycle';
import { gpuNode, gpuPod } from '../lambdas/scheduling/kube-objects';

function model(nodes: object[]) {
  return { cluster: new ClusterState(nodes.map(parseSchedNode)), snapshot: snapshotFromKubernetes(nodes), extenderProfile: createExtenderProfile(), extenderWeight: 2 };
}

describe('scheduleOne', () => {
  it('adds the extender\'s level × weight × 10 to the in-tree points, and reports equal totals as a tie', () => {
    // The extender gives one of two identical nodes its top level; a preferred zone outweighs that on the other.
    const nodes = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z2' })];
    const plain = scheduleOne(model(nodes), parseSchedPod(gpuPod('p', { gpus: 1 })));
    expect(plain.tiedWith).toEqual([]);
    expect(plain.explanation?.margin).toBe(20);
    expect(plain.explanation?.best.points).toEqual({ TaintToleration: 300, extender: 200 });
    const preferring = (zone: string, weight: number) => ({
      ...gpuPod('q', { gpus: 1 }),
      spec: { ...gpuPod('q', { gpus: 1 }).spec, affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] } }] } } },
    });
    const loser = plain.explanation?.runnerUp?.node as string;
    const zoneOf = (name: string) => (name === 'a' ? 'z1' : 'z2');
    const swayed = scheduleOne(model(nodes), parseSchedPod(preferring(zoneOf(loser), 100)));
    // NodeAffinity 100 × 2 = 200 beats one extender level (20 points).
    expect(swayed.node).toBe(loser);
    // Preferring the zone without the extender's top node: its two nodes have equal preferences and equal
    // (second) extender levels, a tie kube-scheduler breaks at random.
    const four = [gpuNode('a', { zone: 'z1' }), gpuNode('b', { zone: 'z1' }), gpuNode('c', { zone: 'z2' }), gpuNode('d', { zone: 'z2' })];
    const top = scheduleOne(model(four), parseSchedPod(gpuPod('p', { gpus: 1 }))).node as string;
    const other = ['a', 'b'].includes(top) ? ['c', 'd'] : ['a', 'b'];
    const tied = scheduleOne(model(four), parseSchedPod(preferring(other[0] === 'a' ? 'z1' : 'z2', 100)));
    expect(tied.tiedWith).toEqual(other);
    expect(tied.node).toBe(other[0]);
    expect(tied.explanation?.best.points).toEqual({ TaintToleration: 300, NodeAffinity: 200, extender: 180 });
    expect(tied.explanation?.margin).toBe(0);
  });

  it('says what kube-scheduler says when nothing fits, its filters\' reasons and the extender\'s counted per node', () => {
    const nodes = [{ ...gpuNode('tainted'), spec: { taints: [{ key: 'gpu', value: 'x', effect: 'NoSchedule' }] } }, gpuNode('small', { gpus: 1 }), gpuNode('t4', { model: 'T4' })];
    const pod = { ...gpuPod('p', { gpus: 2, annotations: { 'gpu.nvidia.com/model': 'A100' } }) };
    const result = scheduleOne(model(nodes), parseSchedPod(pod));
    expect(result.node).toBeUndefined();
    expect(result.inTreeRejectedCount).toBe(2);
    expect(result.extenderRejected.map((r) => [r.node, r.code])).toEqual([['t4', 'GpuModelMismatch']]);
    expect(failedSchedulingMessage(result)).toMatch(/^0\/3 nodes are available: 1 GPU model mismatch: .*, 1 Insufficient nvidia.com\/gpu, 1 node\(s\) had untolerated taint\(s\)\.$/);
  });
});
