import { errorMessage } from '../common/error-message';
import type { Env } from '../env';
import type { Extender } from './extender-handler';

/**
 * True when Lambda initialises this container ahead of traffic (provisioned
 * concurrency). Its INIT may then run for up to 130 s (or the function's
 * timeout) and no request is waiting on it, so the first listing of the
 * cluster belongs there rather than in the first request, where at 50,000
 * pods it takes seconds of kube-scheduler's httpTimeout. An on-demand INIT
 * runs while its first request waits anyway, and has a 10 s limit.
 */
export function warmsAtInit(env: Env): boolean {
  return env.AWS_LAMBDA_INITIALIZATION_TYPE === 'provisioned-concurrency';
}

/**
 * Wires the extender and fills its cluster cache when warmsAtInit says so.
 * Never throws: a failed warm-up (bad configuration, an unreachable API
 * server) is logged and left to the first request, which retries it and
 * answers with the error as it would without the warm-up.
 */
export async function warmAtInit(extender: Extender, env: Env): Promise<void> {
  if (!warmsAtInit(env)) return;
  try {
    const { cache } = await extender.deps();
    await cache?.snapshot();
  } catch (error) {
    extender.telemetry.logger.warn('cluster cache warm-up at INIT failed; the first request lists', { error: errorMessage(error) });
  }
}
