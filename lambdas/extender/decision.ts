import type { FilterRejection, NodeScoreExplanation, RejectionReason } from '../scheduling';
import { rejectionMessage } from '../scheduling';

/** A node of /prioritize's ranking: its 0..100 total, each plugin's score, and the 0..10 level sent. */
export interface RankedNode extends NodeScoreExplanation {
  readonly level: number;
}

/** /prioritize: our best node and the runner-up, and whether kube-scheduler sees them as equal (same level). */
export interface ExtenderRanking {
  readonly best: RankedNode;
  readonly runnerUp?: RankedNode;
  readonly tie: boolean;
}

/** What one extender call decided, for the one-line decision log and the rejection metrics. */
export interface DecisionSummary {
  /** namespace/name of the pod being scheduled. */
  readonly pod: string;
  readonly mode: 'Nodes' | 'NodeNames' | 'MetaVictims';
  readonly candidates: number;
  readonly kept: number;
  readonly failed: number;
  readonly reasons: Readonly<Partial<Record<RejectionReason, number>>>;
  /** The most frequent rejection messages with their counts, most frequent first. */
  readonly topReasons: readonly string[];
  /** /prioritize only: why our top node ranks first, per plugin, and the runner-up. */
  readonly ranking?: ExtenderRanking;
}

const TOP_REASONS = 3;

/**
 * One text for every node the cluster cache lacks: kube-scheduler's
 * FailedScheduling event counts nodes per distinct message ("3 Node is not
 * in …"), so a message naming each node would list them all, and the
 * FailedNodes key already names it.
 */
export const NOT_IN_CACHE_MESSAGE = rejectionMessage('NodeNotFound', "new node, or outside the cache's label selector");

/**
 * Tallies rejections while a verb runs. Plugins hand out one rejection object
 * per distinct reason, so counting by object is one identity-hash lookup per
 * node; codes and messages are aggregated once, in `summary`.
 */
export class RejectionTally {
  private readonly byStatus = new Map<FilterRejection, number>();
  /** Nodes the cluster cache lacks (all share NOT_IN_CACHE_MESSAGE). */
  private notFound = 0;
  failed = 0;

  add(status: FilterRejection, nodes = 1): void {
    this.failed += nodes;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + nodes);
  }

  addNotFound(nodes = 1): void {
    this.failed += nodes;
    this.notFound += nodes;
  }

  summary(pod: string, mode: DecisionSummary['mode'], candidates: number, kept: number): DecisionSummary {
    const reasons: Partial<Record<RejectionReason, number>> = {};
    const messages = new Map<string, number>();
    const count = (code: RejectionReason, message: string, n: number) => {
      reasons[code] = (reasons[code] ?? 0) + n;
      messages.set(message, (messages.get(message) ?? 0) + n);
    };
    if (this.notFound > 0) count('NodeNotFound', NOT_IN_CACHE_MESSAGE, this.notFound);
    for (const [status, n] of this.byStatus) count(status.code, status.message, n);
    const topReasons = [...messages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_REASONS)
      .map(([message, n]) => `${message} (${n} node${n === 1 ? '' : 's'})`);
    return { pod, mode, candidates, kept, failed: this.failed, reasons, topReasons };
  }
}
