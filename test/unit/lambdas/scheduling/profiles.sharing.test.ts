import { describe, expect, it } from 'vitest';
import type { KubeNode, KubePod } from '../../../../lambdas/scheduling';
import { parsePodRequirements } from '../../../../lambdas/scheduling/pod-requirements';
import { podInfoFromKubernetes } from '../../../../lambdas/scheduling/pod-info';
import { createExtenderProfile, createSimulatorProfile } from '../../../../lambdas/scheduling/profiles';
import { selectNode } from '../../../../lambdas/scheduling/profile';
import { chooseDevices } from '../../../../lambdas/scheduling/device-choice';
import { snapshotFromKubernetes, type Snapshot } from '../../../../lambdas/scheduling/snapshot';
import { gpuNode, gpuPod } from './kube-objects';

// A pure sharing cluster: every GPU pod so far is a replica, so the learnt
// shapes (one replica) see no fragment anywhere. The default profiles must
// still pack sharers onto GPUs that are already shared and keep untouched
// GPUs and nodes whole.

/** g5.12xlarge with the device plugin's time-slicing, 4 replicas per GPU, as GFD labels it. */
function timeSliced(name: string, resource: 'nvidia.com/gpu' | 'nvidia.com/gpu.shared'): KubeNode {
  const node = gpuNode(name, {
    gpus: 4,
    model: '',
    // EC2's A10G figure in our label, NVML's in GFD's: one GPU, two numbers.
    memoryMiB: 22888,
    labels: {
      'nvidia.com/gpu.product': resource === 'nvidia.com/gpu' ? 'NVIDIA-A10G-SHARED' : 'NVIDIA-A10G',
      'nvidia.com/gpu.count': '4',
      'nvidia.com/gpu.memory': '23028',
      'nvidia.com/gpu.replicas': '4',
      'nvidia.com/gpu.sharing-strategy': 'time-slicing',
      'gpu.nvidia.com/count': '4',
    },
  });
  const allocatable = { ...node.status?.allocatable, 'nvidia.com/gpu': resource === 'nvidia.com/gpu' ? '16' : '0', [resource]: '16' };
  return { ...node, status: { allocatable, capacity: allocatable } };
}

function sharer(name: string, resource: string, nodeName?: string): KubePod {
  const pod = gpuPod(name, { ...(nodeName === undefined ? {} : { nodeName }) });
  const container = { name: 'main', resources: { limits: { [resource]: '1' } } };
  return { ...pod, spec: { ...pod.spec, containers: [container] } };
}

/** Places `count` sharers one by one, each time listing the emptiest node first so a tie would go there. */
function placeSharers(snapshot: Snapshot, resource: string, count: number, profile = createExtenderProfile()): string[] {
  const placed: string[] = [];
  for (let i = 0; i < count; i++) {
    const requirements = parsePodRequirements(sharer(`s${i}`, resource));
    const emptiestFirst = [...snapshot.nodes].sort((a, b) => b.freeGpuMilli - a.freeGpuMilli);
    const { node } = selectNode(profile, snapshot, requirements, emptiestFirst);
    if (node === undefined) throw new Error(`sharer ${i} fits nowhere`);
    const state = profile.startCycle(snapshot, requirements);
    profile.score(state, [node]);
    const devices = chooseDevices(profile, state, node);
    const info = podInfoFromKubernetes(sharer(`s${i}`, resource, node.name));
    if (info === undefined) throw new Error('sharer did not parse');
    snapshot.bind(info, devices);
    placed.push(node.name);
  }
  return placed;
}

describe('default profiles on time-sliced nodes: sharers pack onto shared GPUs', () => {
  for (const resource of ['nvidia.com/gpu', 'nvidia.com/gpu.shared'] as const) {
    it(`${resource}: the next sharer joins the node already sharing, not the untouched one`, () => {
      const snapshot = snapshotFromKubernetes(
        [timeSliced('untouched', resource), timeSliced('sharing', resource)],
        [sharer('first', resource, 'sharing')],
      );
      const requirements = parsePodRequirements(sharer('next', resource));
      for (const profile of [createExtenderProfile(), createSimulatorProfile()]) {
        // The untouched node is listed first: a tie would land there.
        const { node, feasible } = selectNode(profile, snapshot, requirements, [snapshot.getNode('untouched'), snapshot.getNode('sharing')].flatMap((n) => (n ? [n] : [])));
        expect(feasible).toHaveLength(2);
        expect(node?.name).toBe('sharing');
      }
    });
  }

  it('eight sharers on two empty 4×4 nodes fill two GPUs of one node and leave the other node whole', () => {
    const snapshot = snapshotFromKubernetes([timeSliced('a', 'nvidia.com/gpu'), timeSliced('b', 'nvidia.com/gpu')]);
    const placed = placeSharers(snapshot, 'nvidia.com/gpu', 8);
    expect(new Set(placed).size).toBe(1);
    const used = snapshot.getNode(placed[0] ?? '');
    const other = snapshot.nodes.find((n) => n !== used);
    // 4 replicas per GPU: a share is 250/1000; two GPUs full, two untouched.
    expect([...(used?.devices ?? [])].sort((x, y) => x - y)).toEqual([0, 0, 1000, 1000]);
    expect([...(other?.devices ?? [])]).toEqual([1000, 1000, 1000, 1000]);
  });

  it('a node without sharing is unaffected: two empty unshared nodes still tie for a whole-GPU pod', () => {
    const snapshot = snapshotFromKubernetes([gpuNode('x', { gpus: 4 }), gpuNode('y', { gpus: 4 })]);
    const profile = createExtenderProfile();
    const state = profile.startCycle(snapshot, parsePodRequirements(gpuPod('whole', { gpus: 4 })));
    const scores = profile.score(state, snapshot.nodes);
    expect(scores[0]).toBe(scores[1]);
  });
});
