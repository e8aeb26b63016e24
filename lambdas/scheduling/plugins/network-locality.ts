import type { CycleState, PreScoreResult, ScorePlugin } from '../framework';
import { SKIP, stateKey } from '../framework';
import type { LabelSelector } from '../label-selector';
import { selectorMatches } from '../label-selector';
import { ANYWHERE, LOCALITY_LEVELS } from '../network-topology';
import type { NodeInfo } from '../node-info';
import type { PodInfo } from '../pod-info';
import type { PodRequirements } from '../pod-requirements';
import type { Snapshot } from '../snapshot';
import type { JobBlock, PeerPlacement } from '../job-block';
import { chooseJobBlock, levelToBlock } from '../job-block';

export const NETWORK_LOCALITY_NAME = 'NetworkLocality' as const;

/**
 * Points between adjacent locality levels, and the most that the share of
 * peers at a level adds within it: 6 × 16.5 + 1 = 100 for a node holding
 * every peer. Adjacent levels are thus at least 15.5 points apart; the
 * weights in profiles.ts turn that into "locality outweighs any
 * fragmentation difference" (docs/extender.md).
 */
export const LEVEL_POINTS = 16.5;
export const PEER_SHARE_POINTS = 1;

interface Locality {
  readonly peers: PeerPlacement | undefined;
  readonly block: JobBlock | undefined;
  /** peerScore per node for `peers` (see peerScores). */
  readonly scores: Map<NodeInfo, number> | undefined;
}

const LOCALITY = stateKey<Locality | typeof SKIP>(`${NETWORK_LOCALITY_NAME}/locality`);

/**
 * Keeps a pod near the peers named by its gpu.nvidia.com/peer-selector
 * (bound pods in the same namespace), by how deep a node shares the EC2
 * network hierarchy with them: same node > same bottom network node > each
 * layer up > same zone > anywhere (levels in network-topology.ts; nodes
 * without the EKS labels have only node and zone). Within a level, more
 * peers score a little higher.
 *
 * With gpu.nvidia.com/group-size the pod's job also gets a block: the
 * smallest one that can still take all its pods not yet placed (see
 * chooseJobBlock). Nodes inside score by their locality to the placed pods,
 * every node outside below every node inside, by how far up it meets the
 * block. Without a selector, or with neither a placed peer nor a block, the
 * plugin has no preference and skips the pod.
 */
export const networkLocality: ScorePlugin = {
  name: NETWORK_LOCALITY_NAME,

  // PreScore, not PreFilter: a filter-only call (the extender's /filter) never pays for the peer scan.
  preScore(state: CycleState, pod: PodRequirements, nodes: readonly NodeInfo[]): PreScoreResult {
    let locality = state.read(LOCALITY);
    if (locality === undefined) {
      locality = resolve(state.snapshot, pod, nodes);
      state.write(LOCALITY, locality);
    }
    return locality === SKIP ? SKIP : undefined;
  },

  score(state: CycleState, _pod: PodRequirements, node: NodeInfo): number {
    const locality = state.read(LOCALITY);
    if (locality === undefined || locality === SKIP) return 0;
    const { peers, block } = locality;
    if (block !== undefined) {
      const level = levelToBlock(node, block);
      if (level > block.level || peers === undefined) return (ANYWHERE - level) * LEVEL_POINTS;
    }
    if (peers === undefined) return 0;
    const scores = locality.scores as Map<NodeInfo, number>;
    let score = scores.get(node);
    if (score === undefined) {
      score = peerScore(node, peers);
      scores.set(node, score);
    }
    return score;
  },
};

/**
 * peerScore depends only on the node's locality keys, which never change,
 * and on the placement, which is never changed once scanned (a bind or a new
 * snapshot makes a new scan, see peersOf). So it is kept per placement and
 * node: the pods of one job share a scan, and each of their prioritize calls
 * would otherwise look every node's keys up again, a few cache misses per
 * node that were most of this plugin's time at 5,000 nodes.
 */
const peerScores = new WeakMap<PeerPlacement, Map<NodeInfo, number>>();

function scoresFor(peers: PeerPlacement): Map<NodeInfo, number> {
  let scores = peerScores.get(peers);
  if (scores === undefined) peerScores.set(peers, (scores = new Map()));
  return scores;
}

function resolve(snapshot: Snapshot, pod: PodRequirements, nodes: readonly NodeInfo[]): Locality | typeof SKIP {
  const selector = pod.peerSelector;
  if (selector === undefined) return SKIP;
  const peers = peersOf(snapshot, pod, selector);
  let block: JobBlock | undefined;
  if (pod.groupSize !== undefined) {
    // More peers than the group's size (a rerun, a selector wider than the job): this pod is still to place.
    const remaining = Math.max(1, pod.groupSize - (peers?.total ?? 0));
    block = chooseJobBlock(nodes, pod.demand, remaining, peers);
    if (block !== undefined && block.level === ANYWHERE) block = undefined;
  }
  return peers === undefined && block === undefined ? SKIP : { peers, block, scores: peers === undefined ? undefined : scoresFor(peers) };
}

/** The deepest level at which the node shares a key with a peer, and the share of peers there. */
function peerScore(node: NodeInfo, peers: PeerPlacement): number {
  const keys = node.localityKeys;
  for (let level = 0; level < ANYWHERE; level++) {
    const key = keys[level];
    if (key === undefined) continue;
    const count = peers.perKey.get(key);
    if (count !== undefined) return (ANYWHERE - level) * LEVEL_POINTS + (PEER_SHARE_POINTS * count) / peers.total;
  }
  return 0;
}

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
 * afresh and the old one's scans are collected with it. Only the pod's own
 * namespace is scanned: pods elsewhere are never peers, as with Kubernetes
 * label selectors on pods.
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
  const perKey = new Map<string, number>();
  const matched = new Set<string>();
  let total = 0;
  for (const peer of pods) {
    if (peer.uid === excludeUid || !selectorMatches(selector, peer.labels)) continue;
    matched.add(peer.uid);
    const node = snapshot.getNode(peer.nodeName);
    if (node === undefined) continue;
    total++;
    for (let level = 0; level < LOCALITY_LEVELS; level++) {
      const key = node.localityKeys[level];
      if (key !== undefined) perKey.set(key, (perKey.get(key) ?? 0) + 1);
    }
  }
  return { pods, scanned: pods.length, placement: total > 0 ? { total, perKey } : undefined, matched };
}
