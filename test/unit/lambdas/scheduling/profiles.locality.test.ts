import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeNode, KubePod, NodeInfo } from '../../../../lambdas/scheduling';
import {
  LEVEL_POINTS,
  Profile,
  createSimulatorProfile,
  networkLocality,
  parsePodRequirements,
  selectNode,
  snapshotFromKubernetes,
} from '../../../../lambdas/scheduling';
import { gpuPod } from './kube-objects';
import { topologyNode } from './topology-nodes';

const load = (name: string, nodeName: string, gpus: number) => gpuPod(name, { gpus, nodeName });
const trainer = (name: string, gpus: number, extra: { nodeName?: string; annotations?: Record<string, string> } = {}) =>
  gpuPod(name, { gpus, labels: { job: 'x' }, annotations: { 'gpu.nvidia.com/peer-selector': 'job=x', ...extra.annotations }, ...(extra.nodeName === undefined ? {} : { nodeName: extra.nodeName }) });

function place(nodes: readonly KubeNode[], bound: readonly KubePod[], pod: KubePod, profile = createSimulatorProfile()): string | undefined {
  return selectNode(profile, snapshotFromKubernetes(nodes, bound), parsePodRequirements(pod)).node?.name;
}

describe('default profile: locality wins across blocks, Fragmentation within', () => {
  const nodes = [
    topologyNode('peer', ['t', 'm', 'b1']),
    topologyNode('in-block-empty', ['t', 'm', 'b1']),
    topologyNode('out-exact', ['t', 'm', 'b2']),
  ];
  const bound = [trainer('p0', 8, { nodeName: 'peer' }), load('busy', 'out-exact', 6)];

  it('a pod without peers goes where Fragmentation wants it (an exact fit)', () => {
    expect(place(nodes, bound, gpuPod('solo', { gpus: 2 }))).toBe('out-exact');
  });

  it('a pod naming peers stays in their bottom block even on a node Fragmentation likes less', () => {
    expect(place(nodes, bound, trainer('w', 2))).toBe('in-block-empty');
  });

  it('within the block Fragmentation still chooses', () => {
    const more = [...nodes, topologyNode('in-block-exact', ['t', 'm', 'b1'])];
    expect(place(more, [...bound, load('busy2', 'in-block-exact', 6)], trainer('w', 2))).toBe('in-block-exact');
  });

  it('property: the pod lands at the best locality level, and there on the node the profile without locality picks', () => {
    const cluster = fc.record({
      nodes: fc.array(fc.record({ mid: fc.nat(1), bottom: fc.nat(2), zone: fc.constantFrom('z1', 'z2'), used: fc.nat(8), utilization: fc.nat(100) }), { minLength: 2, maxLength: 10 }),
      peers: fc.array(fc.record({ at: fc.nat(), gpus: fc.integer({ min: 1, max: 4 }) }), { maxLength: 3 }),
      gpus: fc.integer({ min: 1, max: 4 }),
      group: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    });
    const localityOnly = new Profile({ name: 'locality', filters: [], scorers: [{ plugin: networkLocality, weight: 1 }] });
    const withoutLocality = createSimulatorProfile({ weights: { NetworkLocality: 0 } });
    const runs = 200;
    let unplaced = 0;
    fc.assert(
      fc.property(cluster, (c) => {
        const kubeNodes = c.nodes.map((n, i) =>
          topologyNode(`n${i}`, ['t', `m${n.mid}`, `m${n.mid}b${n.bottom}`], { zone: n.zone, utilization: String(n.utilization) }),
        );
        const bound: KubePod[] = c.nodes.flatMap((n, i) => (n.used > 0 ? [load(`load${i}`, `n${i}`, n.used)] : []));
        c.peers.forEach((p, i) => bound.push(trainer(`peer${i}`, p.gpus, { nodeName: `n${p.at % c.nodes.length}` })));
        const pod = trainer('w', c.gpus, c.group === undefined ? {} : { annotations: { 'gpu.nvidia.com/group-size': String(c.group) } });
        const snapshot = snapshotFromKubernetes(kubeNodes, bound);
        const requirements = parsePodRequirements(pod);
        const chosen = selectNode(createSimulatorProfile(), snapshot, requirements);
        if (chosen.node === undefined) {
          // Nowhere to go is right only when no node has the GPUs free.
          expect(chosen.feasible).toEqual([]);
          expect(snapshot.nodes.filter((n) => n.freeWholeGpus >= c.gpus).map((n) => n.name)).toEqual([]);
          unplaced++;
          return;
        }
        const feasible = chosen.feasible;
        const state = localityOnly.startCycle(snapshot, requirements);
        const raw = localityOnly.score(state, feasible);
        const level = (i: number) => 6 - Math.floor((raw[i] ?? 0) / LEVEL_POINTS);
        const levels = feasible.map((_, i) => level(i));
        const chosenLevel = levels[feasible.indexOf(chosen.node)] ?? Number.NaN;
        expect(chosenLevel).toBe(Math.min(...levels));
        // Same level and same score there = same block; among those the locality-free profile decides.
        const chosenRaw = raw[feasible.indexOf(chosen.node)];
        const block: NodeInfo[] = feasible.filter((_, i) => raw[i] === chosenRaw);
        expect(selectNode(withoutLocality, snapshot, requirements, block).node?.name).toBe(chosen.node.name);
      }),
      { numRuns: runs },
    );
    // The property is about placed pods: most generated clusters must have room for one.
    expect(unplaced).toBeLessThan(runs / 4);
  });
});
