import type { ScheduledEvent } from 'aws-lambda';
import { lazy } from '../common/lazy';
import type { Env } from '../env';
import { ConfigError } from '../env';
import type { LambdaHandler } from '../observability/instrument-handler';
import { instrumentHandler } from '../observability/instrument-handler';
import { METRIC, SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import type { ReconcileSummary } from './reconcile';
import { reconcile, runFailed } from './reconcile';
import { recordReconcile } from './report';
import { recordSchedulerMetrics } from './scheduler-metrics-report';
import { observeSecondScheduler } from './scheduler-metrics-step';
import type { ReconcilerOverrides } from './wiring';
import { wireReconciler } from './wiring';

/** The run reached the cluster or CloudWatch and failed there; already counted by kind. */
export class ReconcileFailedError extends Error {
  override readonly name = 'ReconcileFailedError';
  constructor(readonly summary: ReconcileSummary) {
    super(`reconcile failed: ${summary.errors.map((e) => `${e.step}: ${e.message}`).join('; ')}`);
  }
}

export interface ReconcilerHandlerOptions extends ReconcilerOverrides {
  /** @default process.env */
  readonly env?: Env;
  /** @default a new Telemetry for the reconciler service */
  readonly telemetry?: Telemetry;
}

/**
 * The scheduled handler. Dependencies are wired on the first invocation and
 * reused by the warm container; a configuration error is not kept, so fixing
 * the environment takes effect on the next run.
 */
export function createReconcilerHandler(options: ReconcilerHandlerOptions = {}): LambdaHandler<Partial<ScheduledEvent> | undefined, ReconcileSummary> {
  const env = options.env ?? process.env;
  const telemetry = options.telemetry ?? createTelemetry(SERVICE.reconciler);
  const wired = lazy(() => wireReconciler(env, options));
  return instrumentHandler(telemetry, async (event: Partial<ScheduledEvent> | undefined) => {
    try {
      const { config, deps, schedulerMetrics } = await wired();
      const summary = await reconcile(config.settings, deps);
      recordReconcile(telemetry, summary);
      if (schedulerMetrics) recordSchedulerMetrics(telemetry, await observeSecondScheduler(schedulerMetrics));
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
    }
  });
}
