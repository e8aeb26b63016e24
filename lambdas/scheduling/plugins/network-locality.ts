import type { CycleState, ScorePlugin } from '../framework';
import { stateKey } from '../framework';
import type { LabelSelector } from '../label-selector';
import { selectorMatches } from '../label-selector';
import type { NodeInfo } from '../node-info';
import type { PodInfo } from '../pod-info';
import type { PodRequirements } from '../pod-requirements';
import type { Snapshot } from '../snapshot';

export const NETWORK_LOCALITY_NAME = 'NetworkLocality' as const;

interface PeerPlacement {
  readonly total: number;
  readonly perNode: ReadonlyMap<string, number>;
  readonly perZone: ReadonlyMap<string, number>;
}

const PEERS = stateKey<PeerPlacement>(`${NETWORK_LOCALITY_NAME}/peers`);

/**
 * Keeps a pod near the peers named by its gpu.nvidia.com/peer-selector
 * annotation (bound pods in the same namespace): a node already holding peers
 * scores 50..100, a node in a zone holding peers 10..50, anything else 0. The
 * tiers never overlap, so "same node > same zone > other zone" always holds;
 * within a tier, more peers score higher. Without a selector, or with no
 * bound peer yet, every node scores 0 (no preference).
 */
export const networkLocality: ScorePlugin = {
  name: NETWORK_LOCALITY_NAME,

  // PreScore, not PreFilter: a filter-only call (the extender's /filter) never pays for the peer scan.
  preScore(state: CycleState, pod: PodRequirements): void {
    if (state.read(PEERS) !== undefined) return;
    const selector = pod.peerSelector;
    if (selector === undefined) return;
    const placement = peersOf(state.snapshot, pod, selector);
    if (placement !== undefined) state.write(PEERS, placement);
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

/** One scan of a namespace's bound pods for one selector. */
interface PeerScan {
  /** The list scanned and its length then: Snapshot.bind only appends, so a longer list means "rescan". */
  readonly pods: readonly PodInfo[];
  readonly scanned: number;
  readonly placement: PeerPlacement | undefined;
  /** UIDs of the matching pods, so a pod that is itself bound can be left out of its own peers. */
  readonly matched: ReadonlySet<string>;
}

/**
 * Scans per snapshot, namespace and selector. The extender's cached snapshot
 * serves many requests and pods of one job share a selector, so a prioritize
 * call does not rescan tens of thousands of bound pods; a new snapshot starts
 * afresh and the old one's scans are collected with it.
 */
const scans = new WeakMap<Snapshot, Map<string, PeerScan>>();

function peersOf(snapshot: Snapshot, pod: PodRequirements, selector: LabelSelector): PeerPlacement | undefined {
  const pods = snapshot.podsInNamespace(pod.namespace);
  const key = `${pod.namespace}\u0000${JSON.stringify(selector)}`;
  let bySnapshot = scans.get(snapshot);
  if (bySnapshot === undefined) scans.set(snapshot, (bySnapshot = new Map()));
  let scan = bySnapshot.get(key);
  if (scan === undefined || scan.pods !== pods || scan.scanned !== pods.length) {
    scan = scanPeers(snapshot, pods, selector, undefined);
    bySnapshot.set(key, scan);
  }
  return scan.matched.has(pod.uid) ? scanPeers(snapshot, pods, selector, pod.uid).placement : scan.placement;
}

function scanPeers(snapshot: Snapshot, pods: readonly PodInfo[], selector: LabelSelector, excludeUid: string | undefined): PeerScan {
  const perNode = new Map<string, number>();
  const perZone = new Map<string, number>();
  const matched = new Set<string>();
  let total = 0;
  for (const peer of pods) {
    if (peer.uid === excludeUid || !selectorMatches(selector, peer.labels)) continue;
    matched.add(peer.uid);
    const node = snapshot.getNode(peer.nodeName);
    if (node === undefined) continue;
    total++;
    perNode.set(node.name, (perNode.get(node.name) ?? 0) + 1);
    if (node.zone !== undefined) perZone.set(node.zone, (perZone.get(node.zone) ?? 0) + 1);
  }
  return { pods, scanned: pods.length, placement: total > 0 ? { total, perNode, perZone } : undefined, matched };
}
