import type { CycleState, PreScoreResult, ScorePlugin } from '../../lambdas/scheduling/framework';
import { SKIP, stateKey } from '../../lambdas/scheduling/framework';
import { selectorMatches } from '../../lambdas/scheduling/label-selector';
import type { NodeInfo } from '../../lambdas/scheduling/node-info';
import type { PodRequirements } from '../../lambdas/scheduling/pod-requirements';
import { normalizeMinMax } from '../../lambdas/scheduling/normalize-min-max';

interface PeerCounts {
  readonly total: number;
  readonly byKey: ReadonlyMap<string, number>;
}

/** Bound pods the pod's peer selector matches, counted per value of `keyOf(node)` (one scan per cycle). */
function countPeers(state: CycleState, pod: PodRequirements, keysOf: (node: NodeInfo) => readonly (string | undefined)[]): PeerCounts | undefined {
  const selector = pod.peerSelector;
  if (selector === undefined) return undefined;
  const byKey = new Map<string, number>();
  let total = 0;
  for (const peer of state.snapshot.podsInNamespace(pod.namespace)) {
    if (peer.uid === pod.uid || !selectorMatches(selector, peer.labels)) continue;
    const node = state.snapshot.getNode(peer.nodeName);
    if (node === undefined) continue;
    total++;
    for (const key of keysOf(node)) if (key !== undefined) byKey.set(key, (byKey.get(key) ?? 0) + 1);
  }
  return total > 0 ? { total, byKey } : undefined;
}

const ZONE_PEERS = stateKey<PeerCounts>('ZoneLocality/peers');

/**
 * NetworkLocality as it was before it read EKS's network layers, for comparison: a node holding
 * peers scores 50..100, a node in a zone holding peers 10..50, else 0.
 */
export const zoneLocality: ScorePlugin = {
  name: 'ZoneLocality',
  preScore(state: CycleState, pod: PodRequirements): PreScoreResult {
    const peers = countPeers(state, pod, (node) => [`node/${node.name}`, node.zone === undefined ? undefined : `zone/${node.zone}`]);
    if (peers === undefined) return SKIP;
    state.write(ZONE_PEERS, peers);
    return undefined;
  },
  score(state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
    const peers = state.read(ZONE_PEERS);
    if (peers === undefined) return 0;
    const onNode = peers.byKey.get(`node/${node.name}`) ?? 0;
    if (onNode > 0) return 50 + (50 * onNode) / peers.total;
    const inZone = node.zone === undefined ? 0 : (peers.byKey.get(`zone/${node.zone}`) ?? 0);
    return inZone > 0 ? 10 + (40 * inZone) / peers.total : 0;
  },
};

/**
 * kube-scheduler's InterPodAffinity for one preferred term (weight 100) on
 * `topologyKey` with the pod's peer selector, what the EKS user guide shows
 * for the layer-3 label: per node, 100 × the matching pods in its domain,
 * then min–max scaled to 0..100 (all equal: 0).
 */
export function createLayerAffinity(topologyKey: string): ScorePlugin {
  const PEERS = stateKey<PeerCounts>(`LayerAffinity/${topologyKey}`);
  return {
    name: 'LayerAffinity',
    preScore(state: CycleState, pod: PodRequirements): PreScoreResult {
      const peers = countPeers(state, pod, (node) => [node.labels[topologyKey]]);
      if (peers === undefined) return SKIP;
      state.write(PEERS, peers);
      return undefined;
    },
    score(state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
      const domain = node.labels[topologyKey];
      return domain === undefined ? 0 : 100 * (state.read(PEERS)?.byKey.get(domain) ?? 0);
    },
    normalizeScores(_state: CycleState, _pod: PodRequirements, scores: Float64Array): void {
      normalizeMinMax(scores);
    },
  };
}
