import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeInfo, PodInfo } from '../../../../lambdas/scheduling';
import { MirrorSnapshots, nodeInfoFromKubernetes, podInfoFromKubernetes, Snapshot } from '../../../../lambdas/scheduling';
import type { KubeNode } from '../../../../lambdas/scheduling';
import { gpuNode, gpuPod } from './kube-objects';

/** How the device plugin exposes a node's GPUs: whole, time-sliced (4 replicas each, GFD's labels) or MIG (mixed strategy). */
type NodeKind = 'whole' | 'time-sliced' | 'mig';

function kubeNode(name: string, gpus: number, kind: NodeKind): KubeNode {
  if (kind === 'whole') return gpuNode(name, { gpus });
  if (kind === 'time-sliced') {
    const base = gpuNode(name, {
      gpus,
      labels: { 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.sharing-strategy': 'time-slicing', 'nvidia.com/gpu.count': String(gpus) },
    });
    const allocatable = { ...base.status?.allocatable, 'nvidia.com/gpu': '0', 'nvidia.com/gpu.shared': String(gpus * 4) };
    return { ...base, status: { allocatable, capacity: allocatable } };
  }
  const base = gpuNode(name, { gpus, labels: { 'nvidia.com/mig.strategy': 'mixed' } });
  const allocatable = { ...base.status?.allocatable, 'nvidia.com/gpu': '0', 'nvidia.com/mig-3g.20gb': String(gpus), 'nvidia.com/mig-1g.5gb': String(gpus * 2) };
  return { ...base, status: { allocatable, capacity: allocatable } };
}

function node(name: string, gpus: number, kind: NodeKind = 'whole'): NodeInfo {
  const info = nodeInfoFromKubernetes(kubeNode(name, gpus, kind));
  if (info === undefined) throw new Error('fixture did not reduce');
  return info;
}

/** What a pod asks of the device plugin: whole GPUs, time-slice replicas, or MIG devices of two profiles. */
const POD_RESOURCES = ['nvidia.com/gpu', 'nvidia.com/gpu.shared', 'nvidia.com/mig-3g.20gb', 'nvidia.com/mig-1g.5gb'] as const;
type PodResource = (typeof POD_RESOURCES)[number];

function pod(name: string, nodeName: string, gpus: number, namespace: string, resource: PodResource = 'nvidia.com/gpu'): PodInfo {
  const base = gpuPod(name, { nodeName, namespace, cpu: '1', memory: '1Gi' });
  const container = { name: 'main', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: gpus > 0 ? { [resource]: String(gpus) } : {} } };
  const info = podInfoFromKubernetes({ ...base, spec: { ...base.spec, containers: [container] } });
  if (info === undefined) throw new Error('fixture did not reduce');
  return info;
}

/** Everything a plugin can read of a snapshot, as plain data. */
function view(snapshot: Snapshot) {
  const namespaces = [...new Set(snapshot.pods.map((p) => p.namespace))].sort();
  return {
    nodes: snapshot.nodes.map((n) => ({
      name: n.name,
      pods: n.pods.map((p) => p.uid),
      devices: [...n.devices],
      held: n.pods.map((p) => n.devicesOf(p.uid)),
      cpu: n.requestedCpuMilli,
      memory: n.requestedMemoryBytes,
      aggregates: [n.freeWholeGpus, n.freeGpuMilli, n.maxDeviceFreeMilli],
      mig: [...n.migFree].sort(),
    })),
    pods: snapshot.pods.map((p) => p.uid),
    byNamespace: namespaces.map((ns) => [ns, snapshot.podsInNamespace(ns).map((p) => p.uid)]),
    lookups: snapshot.nodes.map((n) => snapshot.getNode(n.name) === n),
  };
}

const NODE_NAMES = ['a', 'b', 'c', 'd'];
const change = fc.oneof(
  fc.record({
    kind: fc.constant('node' as const),
    name: fc.constantFrom(...NODE_NAMES),
    gpus: fc.integer({ min: 0, max: 8 }),
    // A node can change kind between refreshes, as when an operator re-partitions MIG or turns time-slicing on.
    exposed: fc.constantFrom<NodeKind>('whole', 'time-sliced', 'mig'),
  }),
  fc.record({ kind: fc.constant('node-gone' as const), name: fc.constantFrom(...NODE_NAMES) }),
  fc.record({
    kind: fc.constant('pod' as const),
    uid: fc.integer({ min: 0, max: 15 }),
    // 'x' is a node the mirror never holds: such a pod is listed but bound nowhere.
    nodeName: fc.constantFrom(...NODE_NAMES, 'x'),
    gpus: fc.integer({ min: 0, max: 3 }),
    namespace: fc.constantFrom('ml', 'infra'),
    // Pods listed bound to a node whose kind does not offer their resource are kept as the API server lists them.
    resource: fc.constantFrom(...POD_RESOURCES),
  }),
  fc.record({ kind: fc.constant('pod-gone' as const), uid: fc.integer({ min: 0, max: 15 }) }),
);

describe('MirrorSnapshots', () => {
  it('builds, after any sequence of node and pod changes on whole, time-sliced and MIG nodes, the snapshot a build from scratch gives, and never changes one built before', () => {
    fc.assert(
      fc.property(fc.array(fc.array(change, { maxLength: 6 }), { minLength: 1, maxLength: 12 }), (refreshes) => {
        // Mirrors as WatchedCollection keeps them: replaced objects keep their key's place.
        const nodes = new Map<string, NodeInfo>();
        const pods = new Map<number, PodInfo>();
        const snapshots = new MirrorSnapshots();
        const served: [Snapshot, ReturnType<typeof view>][] = [];
        for (const changes of refreshes) {
          for (const c of changes) {
            if (c.kind === 'node') nodes.set(c.name, node(c.name, c.gpus, c.exposed));
            else if (c.kind === 'node-gone') nodes.delete(c.name);
            else if (c.kind === 'pod') pods.set(c.uid, pod(`p${c.uid}`, c.nodeName, c.gpus, c.namespace, c.resource));
            else pods.delete(c.uid);
          }
          const built = snapshots.build(nodes.values(), pods.values());
          const scratch = new Snapshot(
            [...nodes.values()].map((n) => n.clone()),
            [...pods.values()],
          );
          expect(view(built)).toEqual(view(scratch));
          served.push([built, view(built)]);
          for (const [snapshot, atBuild] of served) expect(view(snapshot)).toEqual(atBuild);
          // The mirrors hold no pods.
          for (const mirror of nodes.values()) expect(mirror.pods).toEqual([]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('models the fixture kinds as the device plugin exposes them, so the property above covers sharing and MIG', () => {
    const sliced = node('s', 2, 'time-sliced');
    expect(sliced.gpuSharing).toBeDefined();
    expect(sliced.replicaMilli).toBe(250);
    const mig = node('m', 2, 'mig');
    expect(mig.mig?.strategy).toBe('mixed');
    expect(Object.fromEntries(mig.migFree)).toEqual({ 'nvidia.com/mig-3g.20gb': 2, 'nvidia.com/mig-1g.5gb': 4 });
    const built = new MirrorSnapshots().build([sliced, mig], [pod('r', 's', 1, 'ml', 'nvidia.com/gpu.shared'), pod('q', 'm', 1, 'ml', 'nvidia.com/mig-1g.5gb')]);
    expect(built.getNode('s')?.freeGpuMilli).toBe(2000 - 250);
    expect(built.getNode('m')?.migFree.get('nvidia.com/mig-1g.5gb')).toBe(3);
  });

  it('copies again only the nodes whose mirror or pods changed', () => {
    const nodes = new Map([
      ['a', node('a', 8)],
      ['b', node('b', 8)],
    ]);
    const pods = new Map([
      ['p1', pod('p1', 'a', 2, 'ml')],
      ['p2', pod('p2', 'b', 1, 'ml')],
    ]);
    const snapshots = new MirrorSnapshots();
    const first = snapshots.build(nodes.values(), pods.values());
    pods.set('p3', pod('p3', 'b', 4, 'ml'));
    const second = snapshots.build(nodes.values(), pods.values());
    expect(second.getNode('a')).toBe(first.getNode('a'));
    expect(second.getNode('b')).not.toBe(first.getNode('b'));
    expect(second.getNode('b')?.freeWholeGpus).toBe(3);
    expect(first.getNode('b')?.freeWholeGpus).toBe(7);
    // A replaced mirror (a MODIFIED node) is copied again even with the same pods.
    nodes.set('a', node('a', 4));
    const third = snapshots.build(nodes.values(), pods.values());
    expect(third.getNode('a')).not.toBe(second.getNode('a'));
    expect(third.getNode('a')?.freeWholeGpus).toBe(2);
  });

  it('leaves two nodes of one name to the constructor: the pods go to the last of them, as before', () => {
    const twins = [node('a', 8), node('a', 8)];
    const pods = [pod('p1', 'a', 2, 'ml')];
    const built = new MirrorSnapshots().build(twins, pods);
    expect(view(built)).toEqual(view(new Snapshot(twins.map((n) => n.clone()), pods)));
    expect(built.getNode('a')?.freeWholeGpus).toBe(6);
  });
});
