import { describe, expect, it } from 'vitest';
import { CLUSTER_MODEL } from '../../../../lambdas/extender/cluster-model';
import type { NodeInfo, PodInfo } from '../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from '../scheduling/kube-objects';

const reduced = <T>(value: T | undefined): T => {
  if (value === undefined) throw new Error('fixture did not reduce');
  return value;
};

describe('CLUSTER_MODEL', () => {
  it('reduces Nodes and bound Pods as the library does, and skips objects that are not', () => {
    const node = reduced(CLUSTER_MODEL.node(gpuNode('a', { gpus: 8 })));
    expect(node).toMatchObject({ name: 'a', gpuCount: 8 });
    expect(reduced(CLUSTER_MODEL.pod(gpuPod('p', { gpus: 2, nodeName: 'a' })))).toMatchObject({ name: 'p', nodeName: 'a' });
    for (const junk of [null, 'node', 42, {}, { metadata: {} }]) expect(CLUSTER_MODEL.node(junk)).toBeUndefined();
  });

  it('binds the pods to copies of the mirrored nodes, so a later snapshot never changes one being served', () => {
    const mirrored: NodeInfo[] = [reduced(CLUSTER_MODEL.node(gpuNode('a', { gpus: 8 })))];
    const pods: PodInfo[] = [reduced(CLUSTER_MODEL.pod(gpuPod('p1', { gpus: 2, nodeName: 'a' })))];
    const snapshots = CLUSTER_MODEL.snapshots();
    const first = snapshots.build(mirrored, pods);
    pods.push(reduced(CLUSTER_MODEL.pod(gpuPod('p2', { gpus: 4, nodeName: 'a' }))));
    const second = snapshots.build(mirrored, pods);

    expect(first.getNode('a')?.freeWholeGpus).toBe(6);
    expect(second.getNode('a')?.freeWholeGpus).toBe(2);
    // The mirror itself stays empty: each snapshot has its own copy.
    expect(mirrored[0]?.pods).toEqual([]);
    expect(first.getNode('a')).not.toBe(mirrored[0]);
  });
});
