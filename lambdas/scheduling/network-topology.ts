import { NETWORK_LAYER_LABELS } from './keys';

/**
 * How close two nodes are, best first: the same node (0), the same bottom
 * network node (1), one layer up (2), two up (3), three up (4, only on
 * four-layer instance types), the same zone (5), anywhere (6). Layers count
 * up from the bottom layer each node has, so a 3-layer and a 4-layer type
 * compare alike: their bottom network nodes are level 1.
 */
export const SAME_NODE = 0;
export const SAME_ZONE = 5;
export const ANYWHERE = 6;
export const LOCALITY_LEVELS = ANYWHERE + 1;

/**
 * One key per locality level (index = level): the node, its network nodes
 * bottom first, its zone, the cluster. Two nodes share level `l` when their
 * keys at `l` are equal; an absent key (no such layer, no zone) is shared
 * with nobody. Built once per node, so peer lookups are map reads.
 *
 * A node's layers are layer-1 … layer-k for the largest k whose labels are
 * all present and non-empty: after a gap EKS's meaning is lost, so deeper
 * labels are ignored, as are layer names other than 1..4.
 */
export function localityKeysOf(nodeName: string, labels: Readonly<Record<string, string>>, zone: string | undefined): readonly (string | undefined)[] {
  const layers: string[] = [];
  for (const label of NETWORK_LAYER_LABELS) {
    const value = labels[label]?.trim();
    if (value === undefined || value === '') break;
    layers.push(value);
  }
  const keys: (string | undefined)[] = new Array<string | undefined>(LOCALITY_LEVELS).fill(undefined);
  keys[SAME_NODE] = `node/${nodeName}`;
  // Keyed by distance from the bottom: that is what "compare from the bottom layer each node has" means.
  for (let up = 0; up < layers.length; up++) keys[up + 1] = `${up}/${layers[layers.length - 1 - up] ?? ''}`;
  if (zone !== undefined && zone !== '') keys[SAME_ZONE] = `zone/${zone}`;
  keys[ANYWHERE] = 'cluster';
  return Object.freeze(keys);
}
