import type { LambdaInterface } from '@aws-lambda-powertools/commons/types';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { Telemetry } from './telemetry';

/** An async Lambda handler: what the runtime calls with each event and its context. */
export type LambdaHandler<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * Wraps a handler in Powertools' own class-method decorators (no middleware
 * library needed): injectLambdaContext puts the invocation's request id,
 * cold_start and function name, ARN and memory size into every log line the
 * Logger writes, and logMetrics publishes the buffered metrics however the
 * invocation ends (returned or threw). The same wrapper serves all three
 * Lambdas and the local extender server.
 */
export function instrumentHandler<E, R>(telemetry: Telemetry, handler: LambdaHandler<E, R>): LambdaHandler<E, R> {
  const { logger, metrics } = telemetry;
  // Decorators apply bottom up: the context is in place before the handler
  // runs and still there when logMetrics publishes at the end.
  class Instrumented implements LambdaInterface {
    @logger.injectLambdaContext()
    @metrics.logMetrics()
    public async handler(event: E, context: Context): Promise<R> {
      return handler(event, context);
    }
  }
  return bound(new Instrumented());
}

/** injectLambdaContext alone, for a handler that logs and records no metrics. */
export function withLambdaContext<E, R>(logger: Logger, handler: LambdaHandler<E, R>): LambdaHandler<E, R> {
  class WithContext implements LambdaInterface {
    @logger.injectLambdaContext()
    public async handler(event: E, context: Context): Promise<R> {
      return handler(event, context);
    }
  }
  return bound(new WithContext());
}

function bound<E, R>(instance: { handler(event: E, context: Context): Promise<R> }): LambdaHandler<E, R> {
  return instance.handler.bind(instance);
}
