import { errorMessage } from '../common/error-message';
import { METRIC } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import type { InstanceOutcome } from './label-instance';
import { errorKind } from './labeler-errors';
import type { ReconcileSummary } from './reconcile-nodes';

/** One labelling outcome as a log line and catalog metrics (the dashboard reads these). */
export function recordInstanceOutcome(telemetry: Telemetry, outcome: InstanceOutcome, instanceId: string, eventTime: number | undefined): void {
  const { logger } = telemetry;
  switch (outcome.result) {
    case 'labeled':
      telemetry.record(METRIC.nodesLabeled, 1);
      if (eventTime !== undefined) telemetry.record(METRIC.timeToLabel, Math.max(0, Date.now() - eventTime));
      if (outcome.startupTaintRemoved) telemetry.record(METRIC.startupTaintsRemoved, 1);
      logger.info('labeled node', {
        instanceId,
        node: outcome.nodeName,
        patch: outcome.patch,
        waitedForRegistrationMs: outcome.waitedMs,
        startupTaintRemoved: outcome.startupTaintRemoved,
      });
      return;
    case 'alreadyCorrect':
      telemetry.record(METRIC.labelsAlreadyCorrect, 1);
      if (outcome.startupTaintRemoved) telemetry.record(METRIC.startupTaintsRemoved, 1);
      logger.info('labels already correct', { instanceId, node: outcome.nodeName, waitedForRegistrationMs: outcome.waitedMs, startupTaintRemoved: outcome.startupTaintRemoved });
      return;
    case 'notRegistered':
      // A warning, not an error: no retry could do better than the wait did, and the reconcile catches late joiners.
      telemetry.record(METRIC.nodesNotRegistered, 1);
      logger.warn('node did not register in time', { instanceId, waitedMs: outcome.waitedMs, looks: outcome.looks, detail: outcome.detail });
      return;
    case 'ignored':
      logger.info('nothing to label', { instanceId, reason: outcome.reason, detail: outcome.detail });
      return;
  }
}

export function recordReconcile(telemetry: Telemetry, summary: ReconcileSummary): void {
  telemetry.record(METRIC.nodesLabeled, summary.labeled);
  telemetry.record(METRIC.labelsAlreadyCorrect, summary.alreadyCorrect);
  telemetry.record(METRIC.startupTaintsRemoved, summary.startupTaintsRemoved);
  for (const [kind, count] of Object.entries(summary.errorsByKind)) telemetry.record(METRIC.labelerErrors, count, { Kind: kind });
  const log = summary.failed > 0 ? telemetry.logger.warn.bind(telemetry.logger) : telemetry.logger.info.bind(telemetry.logger);
  log('reconciled node labels', {
    nodes: summary.nodes,
    labeled: summary.labeled,
    alreadyCorrect: summary.alreadyCorrect,
    skipped: summary.skipped,
    failed: summary.failed,
    startupTaintsRemoved: summary.startupTaintsRemoved,
    errorsByKind: summary.errorsByKind,
    failures: summary.failures,
  });
}

/** A failed invocation, counted by kind. */
export function recordFailure(telemetry: Telemetry, error: unknown, context: Readonly<Record<string, string>>): void {
  const kind = errorKind(error);
  telemetry.record(METRIC.labelerErrors, 1, { Kind: kind });
  telemetry.logger.error('labeling failed; the event will be retried', { ...context, kind, error: errorMessage(error) });
}

export function recordInvalidEvent(telemetry: Telemetry, reason: string): void {
  // Logged and dropped, never thrown: a retry cannot fix a malformed event.
  telemetry.logger.error('rejected event: not an EC2 running state-change or scheduled reconcile', { reason });
  telemetry.record(METRIC.labelerErrors, 1, { Kind: 'InvalidEvent' });
}
