import { NETWORK_LAYER_LABELS } from '../../lambdas/scheduling/keys';
import { NodeInfo } from '../../lambdas/scheduling/node-info';
import type { Rng } from '../trace/seeded-rng';
import { shuffleInPlace } from '../trace/seeded-rng';

/** How many of each level the generated hierarchy has: [min, max] drawn uniformly per parent. */
export interface HierarchyShape {
  readonly zones: number;
  readonly layer1PerZone: readonly [number, number];
  readonly layer2PerLayer1: readonly [number, number];
  readonly bottomPerLayer2: readonly [number, number];
  readonly nodesPerBottom: readonly [number, number];
}

/**
 * A p5.48xlarge-like fleet (8 GPUs, 192 vCPUs, 2 TiB) in two zones, with a
 * 3-layer network hierarchy as EKS labels it: bottom network nodes of 8–32
 * instances, 2–3 of them per layer-2 node, 2–3 layer-2 nodes per layer-1
 * node, 1–2 layer-1 nodes per zone (about 300 nodes).
 */
export const DEFAULT_HIERARCHY: HierarchyShape = {
  zones: 2,
  layer1PerZone: [1, 2],
  layer2PerLayer1: [2, 3],
  bottomPerLayer2: [2, 3],
  nodesPerBottom: [8, 32],
};

export const GPUS_PER_NODE = 8;

/** One generated node: what the scheduler sees, and where it is (for the metrics). */
export interface ClusterNode {
  readonly name: string;
  readonly zone: string;
  /** Network nodes, layer 1 (top) first. */
  readonly layers: readonly string[];
}

export function generateCluster(shape: HierarchyShape, rng: Rng): ClusterNode[] {
  const between = ([lo, hi]: readonly [number, number]) => lo + rng.int(hi - lo + 1);
  const nodes: ClusterNode[] = [];
  for (let z = 0; z < shape.zones; z++) {
    const zone = `zone-${z}`;
    for (let a = 0, na = between(shape.layer1PerZone); a < na; a++) {
      const l1 = `nn-${z}-${a}`;
      for (let b = 0, nb = between(shape.layer2PerLayer1); b < nb; b++) {
        const l2 = `${l1}-${b}`;
        for (let c = 0, nc = between(shape.bottomPerLayer2); c < nc; c++) {
          const l3 = `${l2}-${c}`;
          for (let n = 0, nn = between(shape.nodesPerBottom); n < nn; n++) nodes.push({ name: `${l3}-node-${n}`, zone, layers: [l1, l2, l3] });
        }
      }
    }
  }
  // In no particular order, as a cluster lists its nodes: ties between equal
  // scores go to the earliest node, so a sorted list would hand policies that
  // ignore the hierarchy neighbouring nodes for free.
  shuffleInPlace(nodes, rng);
  return nodes;
}

/** The scheduler's view of a generated node, with the EKS network labels. */
export function toNodeInfo(node: ClusterNode): NodeInfo {
  const labels: Record<string, string> = {};
  node.layers.forEach((value, i) => (labels[NETWORK_LAYER_LABELS[i] ?? ''] = value));
  return new NodeInfo({
    name: node.name,
    labels,
    zone: node.zone,
    gpuCount: GPUS_PER_NODE,
    gpuModel: 'H100',
    cpuMilli: 192_000,
    memoryBytes: 2 * 2 ** 40,
    maxPods: 110,
  });
}

/** The bottom network node (the last layer). */
export function bottomOf(node: ClusterNode): string {
  return node.layers[node.layers.length - 1] ?? node.name;
}

/**
 * Switch hops between two nodes: 0 on one node, 2 through their shared
 * bottom network node, 2 more per layer further up, 2 more again between
 * layer-1 nodes of one zone, and 10 between zones.
 */
export function hopsBetween(a: ClusterNode, b: ClusterNode): number {
  if (a.name === b.name) return 0;
  if (a.zone !== b.zone) return 10;
  for (let up = 0; up < a.layers.length; up++) {
    const i = a.layers.length - 1 - up;
    if (a.layers[i] === b.layers[i]) return 2 * (up + 1);
  }
  return 2 * (a.layers.length + 1);
}
