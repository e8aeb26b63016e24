import type { Telemetry } from './telemetry';

/**
 * Wraps one invocation so that its buffered metrics are published however it
 * ends (returned, threw, or was answered with an error), the way Powertools'
 * logMetrics middleware does; the same wrapper serves all three Lambdas and
 * the local extender server.
 */
export function instrumentHandler<E, R>(telemetry: Telemetry, handler: (event: E) => Promise<R>): (event: E) => Promise<R> {
  return async (event: E): Promise<R> => {
    try {
      return await handler(event);
    } finally {
      telemetry.flush();
    }
  };
}
