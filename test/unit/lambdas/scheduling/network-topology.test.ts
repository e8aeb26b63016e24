import { describe, expect, it } from 'vitest';
import { ANYWHERE, localityKeysOf, SAME_NODE, SAME_ZONE } from '../../../../lambdas/scheduling';

const layers = (...values: string[]) => Object.fromEntries(values.map((v, i) => [`topology.k8s.aws/network-node-layer-${i + 1}`, v]));

describe('localityKeysOf', () => {
  it('keys the node, its network nodes bottom first, its zone and the cluster', () => {
    expect(localityKeysOf('n1', layers('t', 'm', 'b'), 'z1')).toEqual(['node/n1', '0/b', '1/m', '2/t', undefined, 'zone/z1', 'cluster']);
  });

  it('compares 3- and 4-layer types from the bottom layer each has', () => {
    const three = localityKeysOf('a', layers('t', 'm', 'b'), 'z');
    const four = localityKeysOf('b', layers('x', 't', 'm', 'b'), 'z');
    expect(four[1]).toBe(three[1]);
    expect(four[3]).toBe(three[3]);
    expect(four[4]).toBe('3/x');
  });

  it('ignores layers after a gap, empty values and layer names other than 1..4', () => {
    const labels = { ...layers('t', '', 'b'), 'topology.k8s.aws/network-node-layer-5': 'deeper', 'topology.k8s.aws/network-node-layer-0': 'x' };
    expect(localityKeysOf('n', labels, undefined)).toEqual(['node/n', '0/t', undefined, undefined, undefined, undefined, 'cluster']);
  });

  it('without labels keeps only node, zone and cluster, as before the hierarchy', () => {
    const keys = localityKeysOf('n', {}, 'z');
    expect(keys[SAME_NODE]).toBe('node/n');
    expect(keys[SAME_ZONE]).toBe('zone/z');
    expect(keys[ANYWHERE]).toBe('cluster');
    expect(keys.slice(1, SAME_ZONE).every((k) => k === undefined)).toBe(true);
  });
});
