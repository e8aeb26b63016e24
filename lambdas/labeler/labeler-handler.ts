import type { Context } from 'aws-lambda';
import { lazy } from '../common/lazy';
import type { Env } from '../env';
import type { LambdaHandler } from '../observability/instrument-handler';
import { instrumentHandler } from '../observability/instrument-handler';
import { SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import { NODE_REGISTRATION_MARGIN_MS } from './config';
import { parseLabelerEvent } from './instance-events';
import type { InstanceOutcome } from './label-instance';
import { labelInstance } from './label-instance';
import type { ReconcileSummary } from './reconcile-nodes';
import { reconcileNodes } from './reconcile-nodes';
import { recordFailure, recordInstanceOutcome, recordInvalidEvent, recordReconcile } from './report';
import type { LabelerOverrides } from './wiring';
import { wireLabeler } from './wiring';

export type LabelerResult =
  | ({ readonly kind: 'instance'; readonly instanceId: string } & InstanceOutcome)
  | { readonly kind: 'instance'; readonly instanceId: string; readonly result: 'ignored'; readonly reason: 'instanceNotRunning'; readonly detail: string }
  | ({ readonly kind: 'reconcile' } & ReconcileSummary)
  | { readonly kind: 'rejected'; readonly reason: string };

export interface LabelerHandlerOptions extends LabelerOverrides {
  /** @default process.env */
  readonly env?: Env;
  /** @default a new Telemetry for the labeler service */
  readonly telemetry?: Telemetry;
}

/** The part of the Lambda context the labeler reads. */
export type LabelerInvocationContext = Pick<Context, 'getRemainingTimeInMillis'>;

/**
 * The EventBridge handler (EC2 state-change `running`, and the reconcile
 * schedule). Dependencies are wired on the first invocation that needs them
 * and reused by the warm container; a configuration or DescribeCluster
 * failure is not kept, so the next invocation tries again.
 */
export function createLabelerHandler(options: LabelerHandlerOptions = {}): LambdaHandler<unknown, LabelerResult> {
  const env = options.env ?? process.env;
  const telemetry = options.telemetry ?? createTelemetry(SERVICE.labeler);
  const wired = lazy(() => wireLabeler(env, options));

  async function run<T>(fn: () => Promise<T>, context: Record<string, string>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      recordFailure(telemetry, error, context);
      throw error;
    }
  }

  return instrumentHandler(telemetry, async (event: unknown, context: Context): Promise<LabelerResult> => {
    const request = parseLabelerEvent(event);
    switch (request.kind) {
      case 'invalid':
        recordInvalidEvent(telemetry, request.reason);
        return { kind: 'rejected', reason: request.reason };
      case 'instanceNotRunning': {
        const detail = `instance ${request.instanceId} is ${request.state}, only running instances are labelled`;
        telemetry.logger.info('ignored state-change', { instanceId: request.instanceId, state: request.state });
        return { kind: 'instance', instanceId: request.instanceId, result: 'ignored', reason: 'instanceNotRunning', detail };
      }
      case 'instanceRunning': {
        const outcome = await run(async () => {
          const deps = await wired();
          return labelInstance(deps, request.instanceId, registrationDeadline(deps.clock.now(), deps.config.nodeRegistration.waitMs, context));
        }, { instanceId: request.instanceId });
        recordInstanceOutcome(telemetry, outcome, request.instanceId, request.eventTime);
        return { kind: 'instance', instanceId: request.instanceId, ...outcome };
      }
      case 'reconcile': {
        const summary = await run(async () => reconcileNodes(await wired()), { trigger: 'schedule' });
        recordReconcile(telemetry, summary);
        return { kind: 'reconcile', ...summary };
      }
    }
  });
}

/** The configured wait, cut short so that labelling after it still ends before the function's timeout (a timeout is a Lambda error). */
export function registrationDeadline(now: number, waitMs: number, context: LabelerInvocationContext): number {
  const budget = Math.min(waitMs, context.getRemainingTimeInMillis() - NODE_REGISTRATION_MARGIN_MS);
  return now + Math.max(0, budget);
}
