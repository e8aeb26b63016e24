import type { ExtenderVerb } from '../observability/metric-catalog';
import type { Profile } from '../scheduling';
import { createCallBudgets } from './call-budget';
import { createCandidateResolver } from './candidate-nodes';
import type { ClusterCache } from '../cluster-state/cluster-cache';
import { FilterMemo } from './filter-memo';
import type { ExtenderObserver } from './observer';
import type { ExtenderContext, VerbResult } from './verbs';
import { errorMessage } from '../common/error-message';
import { parseJsonWithinLimits } from './json-limits';
import { filterVerb, preemptVerb, prioritizeVerb } from './verbs';
import { parseExtenderArgs, parsePreemptionArgs } from './wire-args';

/** Transport-free request: what both hosts (ALB Lambda, local HTTP server) hand over. */
export interface RouterRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string | undefined;
  /**
   * How long the call may wait for the cluster cache before answering
   * (call-budget.ts): the Lambda's remaining time less a margin. Unbounded
   * when unset.
   */
  readonly budgetMs?: number;
}

/** Always a JSON-serialisable body. */
export interface RouterResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Router = (request: RouterRequest) => Promise<RouterResponse>;

/** The ALB's cap on a Lambda target's request body. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface RouterDeps {
  readonly profile: Profile;
  readonly cache: ClusterCache | undefined;
  readonly observer: ExtenderObserver;
  /** Path prefix the extender is served under (e.g. "/gpu" for urlPrefix http://alb/gpu); "" by default. */
  readonly basePath?: string;
  /** Monotonic clock in ms, for latency. */
  readonly now?: () => number;
}

const VERB_PATHS: Readonly<Record<string, ExtenderVerb>> = { '/filter': 'filter', '/prioritize': 'prioritize', '/preempt': 'preempt' };

/**
 * POST /filter, /prioritize, /preempt and GET /healthz, in kube-scheduler's
 * extender wire format. Never throws: every outcome is a status and a JSON body.
 */
export function createRouter(deps: RouterDeps): Router {
  const now = deps.now ?? (() => performance.now());
  const basePath = normaliseBase(deps.basePath ?? '');
  const budgets = createCallBudgets(now);
  const cache = deps.cache === undefined ? undefined : budgets.bound(deps.cache);
  const ctx: ExtenderContext = {
    profile: deps.profile,
    cache,
    candidates: createCandidateResolver(cache),
    filterMemo: new FilterMemo(),
    warn: (m, d) => deps.observer.warn(m, d),
  };

  return (request) => budgets.run(request.budgetMs, () => handle(request));

  async function handle(request: RouterRequest): Promise<RouterResponse> {
    const started = now();
    let verb: ExtenderVerb | undefined;
    const fail = (status: number, message: string, headers?: Record<string, string>): RouterResponse => {
      deps.observer.failure(verb, status, message, now() - started);
      return { status, body: { Error: message }, ...(headers ? { headers } : {}) };
    };
    try {
      const path = routePath(request.path, basePath);
      const method = request.method.toUpperCase();
      if (path === '/healthz') {
        if (method !== 'GET' && method !== 'HEAD') return fail(405, `method ${method} not allowed on /healthz; use GET`, { allow: 'GET, HEAD' });
        return { status: 200, body: { status: 'ok' } };
      }
      verb = path === undefined ? undefined : VERB_PATHS[path];
      if (verb === undefined) return fail(404, `no route for ${request.path}; the extender serves POST /filter, /prioritize, /preempt and GET /healthz`);
      if (method !== 'POST') return fail(405, `method ${method} not allowed on /${verb}; use POST`, { allow: 'POST' });

      const text = request.body ?? '';
      if (text.length > MAX_BODY_BYTES || (text.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES)) {
        return fail(413, `request body is over ${MAX_BODY_BYTES} bytes; use nodeCacheCapable: true so the scheduler sends node names only`);
      }
      // Depth is bounded before parsing: the reply echoes request objects,
      // and serialising a very deep one would overflow the stack.
      const parsed = parseJsonWithinLimits(text);
      if (!parsed.ok) return fail(400, parsed.error);
      const body = parsed.value;

      let result: VerbResult;
      if (verb === 'preempt') {
        const args = parsePreemptionArgs(body);
        if (!args.ok) return fail(400, args.error);
        result = await preemptVerb(ctx, args.value);
      } else {
        const args = parseExtenderArgs(body);
        if (!args.ok) return fail(400, args.error);
        result = verb === 'filter' ? await filterVerb(ctx, args.value) : await prioritizeVerb(ctx, args.value);
      }
      const durationMs = now() - started;
      if (result.error !== undefined) deps.observer.failure(verb, result.status, result.error, durationMs);
      else if (result.summary !== undefined) deps.observer.decision(verb, result.summary, durationMs);
      return { status: result.status, body: result.body, ...(result.headers ? { headers: result.headers } : {}) };
    } catch (error) {
      return fail(500, `internal error: ${errorMessage(error)}`);
    }
  }
}

function normaliseBase(base: string): string {
  const trimmed = base.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/** The route below the base path, without query string or trailing slash; undefined when outside the base. */
function routePath(rawPath: string, basePath: string): string | undefined {
  let path = rawPath.split('?', 1)[0] ?? '';
  if (basePath !== '') {
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return undefined;
    path = path.slice(basePath.length);
  }
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}
