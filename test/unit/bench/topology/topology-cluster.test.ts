import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../bench/trace/seeded-rng';
import { bottomOf, DEFAULT_HIERARCHY, generateCluster, hopsBetween, toNodeInfo } from '../../../../bench/topology/topology-cluster';

describe('generateCluster', () => {
  const cluster = generateCluster(DEFAULT_HIERARCHY, createRng(7));

  it('builds the hierarchy within the shape: bottom blocks of 8–32 nodes, two zones, 3 layers', () => {
    const perBottom = new Map<string, number>();
    for (const node of cluster) perBottom.set(bottomOf(node), (perBottom.get(bottomOf(node)) ?? 0) + 1);
    for (const size of perBottom.values()) {
      expect(size).toBeGreaterThanOrEqual(8);
      expect(size).toBeLessThanOrEqual(32);
    }
    expect(new Set(cluster.map((n) => n.zone))).toEqual(new Set(['zone-0', 'zone-1']));
    expect(cluster.every((n) => n.layers.length === 3)).toBe(true);
    // A bottom block lies under one layer-2 node, which lies under one layer-1 node.
    const parent = new Map<string, string>();
    for (const n of cluster) {
      expect(parent.get(bottomOf(n)) ?? n.layers[1]).toBe(n.layers[1]);
      parent.set(bottomOf(n), n.layers[1] ?? '');
    }
  });

  it('is the same for the same seed', () => {
    expect(generateCluster(DEFAULT_HIERARCHY, createRng(7))).toEqual(cluster);
    expect(generateCluster(DEFAULT_HIERARCHY, createRng(8))).not.toEqual(cluster);
  });

  it('labels each node as EKS does, so the library sees its layers', () => {
    const node = cluster[0];
    if (node === undefined) throw new Error('empty cluster');
    const info = toNodeInfo(node);
    expect(info.labels['topology.k8s.aws/network-node-layer-3']).toBe(bottomOf(node));
    expect(info.localityKeys[1]).toBe(`0/${bottomOf(node)}`);
    expect(info.gpuCount).toBe(8);
  });
});

describe('hopsBetween', () => {
  const at = (name: string, zone: string, ...layers: string[]) => ({ name, zone, layers });
  it('counts 2 hops per layer up to the shared network node, 10 across zones', () => {
    const a = at('a', 'z', 't', 'm', 'b');
    expect(hopsBetween(a, a)).toBe(0);
    expect(hopsBetween(a, at('x', 'z', 't', 'm', 'b'))).toBe(2);
    expect(hopsBetween(a, at('x', 'z', 't', 'm', 'b2'))).toBe(4);
    expect(hopsBetween(a, at('x', 'z', 't', 'm2', 'b3'))).toBe(6);
    expect(hopsBetween(a, at('x', 'z', 't2', 'm3', 'b4'))).toBe(8);
    expect(hopsBetween(a, at('x', 'z2', 't', 'm', 'b'))).toBe(10);
  });
});
