import type { CycleState, Plugin } from '../framework';
import { stateKey } from '../framework';
import { selectorMatches } from '../label-selector';
import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';

interface PeerPlacement {
  readonly total: number;
  readonly perNode: ReadonlyMap<string, number>;
  readonly perZone: ReadonlyMap<string, number>;
}

const PEERS = stateKey<PeerPlacement>('NetworkLocality/peers');

/**
 * Keeps a pod near the peers named by its gpu.nvidia.com/peer-selector
 * annotation (bound pods in the same namespace): a node already holding peers
 * scores 50..100, a node in a zone holding peers 10..50, anything else 0. The
 * tiers never overlap, so "same node > same zone > other zone" always holds;
 * within a tier, more peers score higher. Without a selector, or with no
 * bound peer yet, every node scores 0 (no preference).
 */
export const networkLocality: Plugin = {
  name: 'NetworkLocality',

  // PreScore, not PreFilter: a filter-only call (the extender's /filter) never pays for the peer scan.
  preScore(state: CycleState, pod: PodRequirements): void {
    if (state.read(PEERS) !== undefined) return;
    const selector = pod.peerSelector;
    if (selector === undefined) return;
    const perNode = new Map<string, number>();
    const perZone = new Map<string, number>();
    let total = 0;
    for (const peer of state.snapshot.podsInNamespace(pod.namespace)) {
      if (peer.uid === pod.uid || !selectorMatches(selector, peer.labels)) continue;
      const node = state.snapshot.getNode(peer.nodeName);
      if (node === undefined) continue;
      total++;
      perNode.set(node.name, (perNode.get(node.name) ?? 0) + 1);
      if (node.zone !== undefined) perZone.set(node.zone, (perZone.get(node.zone) ?? 0) + 1);
    }
    if (total > 0) state.write(PEERS, { total, perNode, perZone });
  },

  score(state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
    const peers = state.read(PEERS);
    if (peers === undefined) return 0;
    const onNode = peers.perNode.get(node.name) ?? 0;
    if (onNode > 0) return 50 + (50 * onNode) / peers.total;
    const inZone = node.zone === undefined ? 0 : (peers.perZone.get(node.zone) ?? 0);
    if (inZone > 0) return 10 + (40 * inZone) / peers.total;
    return 0;
  },
};
