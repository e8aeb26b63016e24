import type { RejectionReason } from '../scheduling';

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
 * Tallies rejections while a verb runs. Plugins reuse one message string per
 * distinct reason, so counting by message is a cheap hash lookup per node.
 */
export class RejectionTally {
  private readonly codes = new Map<RejectionReason, number>();
  private readonly messages = new Map<string, number>();
  failed = 0;

  add(code: RejectionReason, message: string): void {
    this.failed++;
    this.codes.set(code, (this.codes.get(code) ?? 0) + 1);
    this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
  }

  summary(pod: string, mode: DecisionSummary['mode'], candidates: number, kept: number): DecisionSummary {
    const topReasons = [...this.messages]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_REASONS)
      .map(([message, count]) => `${message} (${count} node${count === 1 ? '' : 's'})`);
    return { pod, mode, candidates, kept, failed: this.failed, reasons: Object.fromEntries(this.codes), topReasons };
  }
}
