import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../../../../../lambdas/scheduling';
import { LEVEL_POINTS, PEER_SHARE_POINTS, networkLocality } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuPod } from '../kube-objects';
import { topologyNode } from '../topology-nodes';

const worker = gpuPod('worker', { gpus: 8, annotations: { 'gpu.nvidia.com/peer-selector': 'job=x' } });
const peer = (name: string, nodeName: string) => gpuPod(name, { gpus: 8, nodeName, labels: { job: 'x' } });

describe('NetworkLocality on the EKS network hierarchy', () => {
  const nodes = [
    topologyNode('peer-node', ['t1', 'm1', 'b1']),
    topologyNode('same-bottom', ['t1', 'm1', 'b1']),
    topologyNode('same-middle', ['t1', 'm1', 'b2']),
    topologyNode('same-top', ['t1', 'm2', 'b3']),
    topologyNode('same-zone', ['t2', 'm3', 'b4']),
    topologyNode('other-zone', ['t3', 'm4', 'b5'], { zone: 'z2' }),
    // A 4-layer type: its bottom network node is b1, like the peer's 3-layer one.
    topologyNode('four-layer-bottom', ['x', 't1', 'm1', 'b1']),
    topologyNode('four-layer-top', ['x', 't1', 'm9', 'b9']),
  ];

  it('same node > same bottom network node > each layer up > same zone > elsewhere', () => {
    const run = runPlugin(networkLocality, nodes, gpuPod('w', { gpus: 1, annotations: { 'gpu.nvidia.com/peer-selector': 'job=x' } }), [peer('p1', 'peer-node')]);
    const order = ['peer-node', 'same-bottom', 'same-middle', 'same-top', 'same-zone', 'other-zone'].map((n) => run.score(n));
    for (let i = 1; i < order.length; i++) expect(order[i - 1]).toBeGreaterThan(order[i] ?? Number.NaN);
    expect(run.score('other-zone')).toBe(0);
  });

  it('normalises 3- and 4-layer types: levels count up from the bottom layer each node has', () => {
    const run = runPlugin(networkLocality, nodes, worker, [peer('p1', 'peer-node')]);
    expect(run.score('four-layer-bottom')).toBe(run.score('same-bottom'));
    expect(run.score('four-layer-top')).toBe(run.score('same-top'));
  });

  it('keeps adjacent levels at least LEVEL_POINTS − PEER_SHARE_POINTS apart, more peers scoring higher within a level', () => {
    const run = runPlugin(networkLocality, nodes, worker, [peer('p1', 'peer-node'), peer('p2', 'same-middle'), peer('p3', 'same-middle')]);
    // Both hold peers: the node with two of three leads by a third of PEER_SHARE_POINTS, not a level.
    expect(run.score('same-middle') - run.score('peer-node')).toBeCloseTo(PEER_SHARE_POINTS / 3);
    expect(run.score('same-middle') - run.score('same-bottom')).toBeGreaterThanOrEqual(LEVEL_POINTS - PEER_SHARE_POINTS);
  });

  it('property: scores follow the locality level to the nearest peer, on random hierarchies', () => {
    const path = fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 1 }));
    const cluster = fc.record({
      paths: fc.array(fc.tuple(path, fc.constantFrom('z1', 'z2')), { minLength: 2, maxLength: 12 }),
      peerAt: fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
    });
    fc.assert(
      fc.property(cluster, ({ paths, peerAt }) => {
        // Values nest (a bottom node lies under one middle node), as EC2's hierarchy does.
        const layers = paths.map(([[four, top, mid, bottom, extra]]) => {
          const three = [`t${top}`, `t${top}m${mid}`, `t${top}m${mid}b${bottom}`];
          return four ? [`x${extra}`, ...three] : three;
        });
        const nodes: KubeNode[] = paths.map(([, zone], i) => topologyNode(`n${i}`, layers[i] ?? [], { zone }));
        const peerNodes = [...new Set(peerAt.map((i) => i % nodes.length))];
        const run = runPlugin(networkLocality, nodes, worker, peerNodes.map((i) => peer(`p${i}`, `n${i}`)));
        const zoneOf = (i: number) => paths[i]?.[1];
        const reference = (i: number): number => {
          let best = 6;
          for (const p of peerNodes) {
            if (p === i) return 0;
            const mine = [...(layers[i] ?? [])].reverse();
            const theirs = [...(layers[p] ?? [])].reverse();
            const up = mine.findIndex((v, d) => v === theirs[d]);
            best = Math.min(best, up >= 0 ? up + 1 : zoneOf(i) === zoneOf(p) ? 5 : 6);
          }
          return best;
        };
        nodes.forEach((_, i) => {
          const score = run.score(`n${i}`);
          const level = reference(i);
          expect(score).toBeGreaterThanOrEqual((6 - level) * LEVEL_POINTS);
          expect(score).toBeLessThanOrEqual((6 - level) * LEVEL_POINTS + (level < 6 ? PEER_SHARE_POINTS : 0));
        });
      }),
    );
  });
});
