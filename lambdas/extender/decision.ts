import type { FilterRejection, RejectionReason } from '../scheduling';

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
}

const TOP_REASONS = 3;

/**
 * Tallies rejections while a verb runs. Plugins hand out one rejection object
 * per distinct reason, so counting by object is one identity-hash lookup per
 * node; codes and messages are aggregated once, in `summary`.
 */
export class RejectionTally {
  private readonly byStatus = new Map<FilterRejection, number>();
  private readonly notFound: string[] = [];
  failed = 0;

  add(status: FilterRejection): void {
    this.failed++;
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  addNotFound(message: string): void {
    this.failed++;
    this.notFound.push(message);
  }

  summary(pod: string, mode: DecisionSummary['mode'], candidates: number, kept: number): DecisionSummary {
    const reasons: Partial<Record<RejectionReason, number>> = {};
    const messages = new Map<string, number>();
    const count = (code: RejectionReason, message: string, n: number) => {
      reasons[code] = (reasons[code] ?? 0) + n;
      messages.set(message, (messages.get(message) ?? 0) + n);
    };
    for (const message of this.notFound) count('NodeNotFound', message, 1);
    for (const [status, n] of this.byStatus) count(status.code, status.message, n);
    const topReasons = [...messages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_REASONS)
      .map(([message, n]) => `${message} (${n} node${n === 1 ? '' : 's'})`);
    return { pod, mode, candidates, kept, failed: this.failed, reasons, topReasons };
  }
}
