import { MAX_EXTENDER_PRIORITY } from './wire-types';

/**
 * Where the drop curve bends (points on the profile's 0..100 scale). Below it
 * a node loses about one level per point behind the best node; beyond it the
 * drop grows logarithmically, so nodes far behind the best stay ranked among
 * themselves (a pod's preferred nodes may all be far behind) until a deficit
 * of about 29.5 points, where the lowest feasible level is reached.
 */
const KNEE = 4;

/** Levels a feasible node may lose behind the best one: it keeps at least 1, above nodes the pod does not fit (0). */
const MAX_DROP = MAX_EXTENDER_PRIORITY - 1;

/**
 * How many levels a node `deficit` points behind the best node loses:
 * round(KNEE·ln(1 + deficit/KNEE)), capped at MAX_DROP. The curve's slope
 * never exceeds 1, so a difference of d points between any two nodes is
 * worth at most ⌊d⌋ + 1 levels, and a node within ~0.53 points of the best
 * gets the best node's level. Non-finite deficits (a NaN score) drop fully.
 */
export function levelDrop(deficit: number): number {
  if (!(deficit >= 0)) return MAX_DROP;
  const drop = Math.round(KNEE * Math.log1p(deficit / KNEE));
  return drop > MAX_DROP ? MAX_DROP : drop;
}

/**
 * Maps the feasible nodes' 0..100 scores onto the extender's whole 0..10.
 * kube-scheduler adds score × extender weight × 10 to its own plugins' sum,
 * and only differences between nodes matter, so the best node gets 10 and
 * every other node loses levels by its absolute distance from the best
 * (levelDrop), never by its rank: noise (40 % vs 41 % utilization, 0.04
 * points) costs at most one level instead of being stretched over the whole
 * range, which would outvote the pod's own preferred affinity and spread
 * constraints (see docs/extender.md, "How our score adds to kube-scheduler's").
 *
 * With `nameAt` (node i's name, asked only of the nodes at the top level),
 * only one node keeps the top level: the best-scoring one, and among equal
 * best scores the one first in a stable order of node names
 * (nodeTieKey); the others at the top drop one level. kube-scheduler breaks
 * equal totals at random (selectHost), and on a cluster of identical nodes
 * that spreads pods over them: on the openb trace random tie-breaking cost
 * FGD's score alone 5 points of GPU allocation (95.13 → 90.06) and costs the
 * blended Fragmentation score 0.11–0.22, a stable preference among equals
 * nothing (docs/simulator.md, ablation). One level is 20 points
 * at the deployed weight 2, less than any preference of the pod's own.
 */
export function toExtenderScores(scores: ArrayLike<number>, nameAt?: (index: number) => string): Uint8Array {
  const out = new Uint8Array(scores.length);
  let best = -Infinity;
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (s > best) best = s;
  }
  for (let i = 0; i < scores.length; i++) out[i] = MAX_EXTENDER_PRIORITY - levelDrop(best - (scores[i] as number));
  if (nameAt !== undefined) keepOneAtTop(out, scores, best, nameAt);
  return out;
}

/** Leaves the top level to one node (see toExtenderScores); keys are hashed only for the nodes there. */
function keepOneAtTop(out: Uint8Array, scores: ArrayLike<number>, best: number, nameAt: (index: number) => string): void {
  let atTop = 0;
  let winner = -1;
  let winnerKey = 0;
  let winnerName = '';
  for (let i = 0; i < out.length; i++) {
    if (out[i] !== MAX_EXTENDER_PRIORITY) continue;
    atTop++;
    if (scores[i] !== best) continue;
    const name = nameAt(i);
    const key = nodeTieKey(name);
    if (winner < 0 || key < winnerKey || (key === winnerKey && name < winnerName)) {
      winner = i;
      winnerKey = key;
      winnerName = name;
    }
  }
  if (atTop <= 1) return;
  for (let i = 0; i < out.length; i++) if (out[i] === MAX_EXTENDER_PRIORITY && i !== winner) out[i] = MAX_EXTENDER_PRIORITY - 1;
}

/**
 * A stable, arbitrary order of node names (32-bit FNV-1a): every extender
 * container and every request agree on it, so among equally good nodes each
 * pod prefers the same one, the way a fixed node order packs (first fit).
 * Hashed rather than alphabetical so that the preferred nodes are not all in
 * one subnet or zone (EKS node names are IP-based).
 */
export function nodeTieKey(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
