import type { ExtenderVerb } from '../observability/metric-catalog';
import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { RejectionReason } from '../scheduling';
import type { DecisionSummary } from './decision';

/** What the router reports; a seam so router tests can assert on decisions without parsing log lines. */
export interface ExtenderObserver {
  /** One per successful verb call. */
  decision(verb: ExtenderVerb, summary: DecisionSummary, durationMs: number): void;
  /** A request that failed: bad input (4xx) or a failed call (5xx, filter Error). */
  failure(verb: ExtenderVerb | undefined, status: number, message: string, durationMs: number): void;
  warn(message: string, details?: Readonly<Record<string, unknown>>): void;
}

/**
 * Structured logs through Powertools' Logger (one line per decision, with the
 * invocation's Lambda context) and EMF metrics from the catalog.
 */
export function telemetryObserver(telemetry: Telemetry): ExtenderObserver {
  const { logger } = telemetry;
  return {
    decision(verb, summary, durationMs) {
      logger.info('extender decision', { verb, durationMs: round(durationMs), ...summary });
      telemetry.recordTogether(
        [
          [METRIC.extenderRequests, 1],
          [METRIC.extenderLatency, durationMs],
        ],
        { Verb: verb },
      );
      for (const [reason, count] of Object.entries(summary.reasons) as [RejectionReason, number][]) {
        telemetry.record(METRIC.nodesRejected, count, { Reason: reason });
      }
    },
    failure(verb, status, message, durationMs) {
      const details = { verb: verb ?? 'none', status, durationMs: round(durationMs), error: message };
      if (status >= 500 || status === 200) logger.error('extender request failed', details);
      else logger.warn('extender request rejected', details);
      if (verb !== undefined) {
        telemetry.recordTogether(
          [
            [METRIC.extenderRequests, 1],
            [METRIC.extenderLatency, durationMs],
            [METRIC.extenderErrors, 1],
          ],
          { Verb: verb },
        );
      }
    },
    warn(message, details) {
      logger.warn(message, { ...details });
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
