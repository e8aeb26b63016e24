import type { NodeInfo } from '../node-info';
import type { PodRequirements } from '../pod-requirements';
import type { FragmentationModel } from './fragmentation-model';
import type { PlacementScorer, Scored } from './placement-score';

/** What a node looked like when its memo was filled; any change empties the memo. */
export interface NodeMemo {
  readonly model: FragmentationModel;
  /** The node's stateVersion: a bind or an unbind since then empties the memo. */
  readonly version: number;
  readonly before: number;
  /**
   * The pod shape scored last on this node and its result, inline: cycles
   * in a row mostly score one shape (a job's members, a replica set), and a
   * hit that reads only this object is what keeps scoring thousands of
   * nodes cheap once their memos are out of the CPU's caches (each further
   * object a hit reads is one more cache miss per node).
   */
  lastKey: string;
  lastScore: number;
  lastDevice: number;
  /** Every other shape scored since the node last changed; made when a second shape comes. */
  others: Map<string, Scored> | undefined;
}

const podKeys = new WeakMap<PodRequirements, string>();

/** What the score depends on: the node state after placement, so CPU, memory and GPU demand only (not models). */
export function podKey(pod: PodRequirements): string {
  let key = podKeys.get(pod);
  if (key === undefined) {
    const { cpuMilli, memoryBytes, gpuCount, gpuMilli } = pod.demand;
    key = `${cpuMilli}|${memoryBytes}|${gpuCount}|${gpuCount > 0 ? gpuMilli : 0}`;
    podKeys.set(pod, key);
  }
  return key;
}

/**
 * The fragmentation score memoised per node and pod shape until the node
 * changes (its stateVersion) or the model does, so a full trace replay and a
 * 5,000-node request stay fast: a node's fragment before placement is
 * computed once per node state, and each shape's score once on top of it.
 */
export class NodeMemos {
  private readonly memos = new WeakMap<NodeInfo, NodeMemo>();

  constructor(private readonly scorer: PlacementScorer) {}

  /** The node's memo with the shape `key` (of `pod`) scored last (lastScore, lastDevice). */
  scored(model: FragmentationModel, key: string, pod: PodRequirements, node: NodeInfo): NodeMemo {
    const memo = this.memos.get(node);
    if (memo !== undefined && memo.model === model && memo.version === node.stateVersion) {
      if (memo.lastKey === key) return memo;
      const others = (memo.others ??= new Map());
      if (!others.has(memo.lastKey)) others.set(memo.lastKey, { score: memo.lastScore, device: memo.lastDevice });
      const { score, device } = others.get(key) ?? this.scorer.score(model, memo.before, pod, node);
      memo.lastKey = key;
      memo.lastScore = score;
      memo.lastDevice = device;
      return memo;
    }
    const before = model.fragmentOf(node, model.termsOf(node));
    const { score, device } = this.scorer.score(model, before, pod, node);
    const fresh: NodeMemo = { model, version: node.stateVersion, before, lastKey: key, lastScore: score, lastDevice: device, others: undefined };
    this.memos.set(node, fresh);
    return fresh;
  }
}
