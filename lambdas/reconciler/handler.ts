import type { ScheduledEvent } from 'aws-lambda';
import type { Env } from '../env';
import { ConfigError } from '../env';
import { METRIC, SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import type { ReconcileSummary } from './reconcile';
import { reconcile, runFailed } from './reconcile';
import type { ReconcilerRuntime } from './runtime';
import { createReconcilerRuntime } from './runtime';

const telemetry = createTelemetry(SERVICE.reconciler);

/** The run reached the cluster or CloudWatch and failed there; already counted by kind. */
export class ReconcileFailedError extends Error {
  override readonly name = 'ReconcileFailedError';
  constructor(readonly summary: ReconcileSummary) {
    super(`reconcile failed: ${summary.errors.map((e) => `${e.step}: ${e.message}`).join('; ')}`);
  }
}

/**
 * Builds the scheduled handler. Configuration and clients are created on the
 * first invocation and reused by the warm container; a configuration error is
 * not cached, so fixing the environment takes effect on the next cold start.
 */
export function createReconcilerHandler(env: Env): (event: Partial<ScheduledEvent> | undefined) => Promise<ReconcileSummary> {
  let runtime: Promise<ReconcilerRuntime> | undefined;
  return async (event) => {
    try {
      runtime ??= createReconcilerRuntime(env).catch((error: unknown) => {
        runtime = undefined;
        throw error;
      });
      const { config, deps } = await runtime;
      const summary = await reconcile(config.settings, deps);
      recordSummary(telemetry, summary);
      const context = { summary, eventId: event?.id, scheduledAt: event?.time };
      if (summary.errors.length > 0) telemetry.logger.error('reconcile finished with errors', context);
      else telemetry.logger.info('reconcile finished', context);
      // Failed list or metric read: nothing was reconciled, so fail the
      // invocation (Lambda Errors alarm, retry); single failed patches are
      // counted and retried by the next scheduled run instead.
      if (runFailed(summary)) throw new ReconcileFailedError(summary);
      return summary;
    } catch (error) {
      if (!(error instanceof ReconcileFailedError)) {
        telemetry.record(METRIC.reconcilerErrors, 1, { Kind: 'Unknown' });
        telemetry.logger.error(error instanceof ConfigError ? 'invalid configuration' : 'reconcile crashed', { error });
      }
      throw error;
    } finally {
      telemetry.flush();
    }
  };
}

export const handler = createReconcilerHandler(process.env);

function recordSummary(t: Telemetry, summary: ReconcileSummary): void {
  t.record(METRIC.podsEvaluated, summary.podsEvaluated);
  t.record(METRIC.deletionCostsWritten, summary.deletionCostsWritten);
  t.record(METRIC.podsWithoutMetrics, summary.podsWithoutMetrics);
  t.record(METRIC.nodeUtilizationWritten, summary.nodeUtilizationWritten);
  t.record(METRIC.writesSkipped, summary.skippedUnchanged, { Reason: 'Unchanged' });
  t.record(METRIC.writesSkipped, summary.skippedBudget, { Reason: 'Budget' });
  t.record(METRIC.writesSkipped, summary.skippedTerminating, { Reason: 'Terminating' });
  for (const kind of ['CloudWatch', 'Kubernetes'] as const) {
    const count = summary.errors.filter((e) => e.kind === kind).length;
    if (count > 0) t.record(METRIC.reconcilerErrors, count, { Kind: kind });
  }
}
