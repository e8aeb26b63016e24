import type { NodeInfo } from './node-info';
import type { PodInfo } from './pod-info';
import type { DraInventory } from './snapshot';
import { Snapshot } from './snapshot';

interface BoundCopy {
  readonly copy: NodeInfo;
  /** The pods bound to the copy, in the order they were bound. */
  readonly pods: readonly PodInfo[];
}

const NO_PODS: readonly PodInfo[] = Object.freeze([]);

/**
 * Snapshots of a mirrored cluster, one per refresh. The mirror's NodeInfos
 * hold no pods, so each snapshot binds the pods to copies and a snapshot
 * being served never changes. A copy is made again only for a node whose
 * mirror was replaced or whose pods changed since the previous snapshot; the
 * others are the previous snapshot's copies, shared (snapshots are read, never
 * changed). So a refresh after a few pod changes binds a few nodes' pods
 * instead of all 50,000, and each snapshot equals a build from scratch: a
 * node's pods are bound in the order they are given, as the Snapshot
 * constructor binds them.
 */
export class MirrorSnapshots {
  private previous = new Map<NodeInfo, BoundCopy>();

  /** The snapshot of `nodes` (unique names, as a mirror keyed by name has them) with `pods` bound. */
  build(nodes: Iterable<NodeInfo>, pods: Iterable<PodInfo>, dra?: DraInventory): Snapshot {
    const all: PodInfo[] = [];
    const byNode = new Map<string, PodInfo[]>();
    for (const pod of pods) {
      all.push(pod);
      let list = byNode.get(pod.nodeName);
      if (list === undefined) byNode.set(pod.nodeName, (list = []));
      list.push(pod);
    }
    const mirrors = [...nodes];
    if (new Set(mirrors.map((node) => node.name)).size !== mirrors.length) {
      // Two nodes of one name: left to the constructor, which binds the pods to the last of them only.
      this.previous = new Map();
      return new Snapshot(
        mirrors.map((node) => node.clone()),
        all,
        dra,
      );
    }
    const next = new Map<NodeInfo, BoundCopy>();
    const copies: NodeInfo[] = [];
    for (const mirror of mirrors) {
      const bound = byNode.get(mirror.name) ?? NO_PODS;
      const before = this.previous.get(mirror);
      let copy: NodeInfo;
      if (before !== undefined && samePods(before.pods, bound)) {
        copy = before.copy;
      } else {
        copy = mirror.clone();
        for (const pod of bound) copy.addPod(pod);
      }
      next.set(mirror, { copy, pods: bound });
      copies.push(copy);
    }
    this.previous = next;
    return Snapshot.ofBoundNodes(copies, all, dra);
  }
}

function samePods(a: readonly PodInfo[], b: readonly PodInfo[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
