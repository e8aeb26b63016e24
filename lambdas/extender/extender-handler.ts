import type { ALBEvent, ALBResult } from 'aws-lambda';
import { errorMessage } from '../common/error-message';
import { lazy } from '../common/lazy';
import { callBudgetMs } from './call-budget';
import type { Env } from '../env';
import type { LambdaHandler } from '../observability/instrument-handler';
import { instrumentHandler } from '../observability/instrument-handler';
import { SERVICE } from '../observability/metric-catalog';
import type { Telemetry } from '../observability/telemetry';
import { createTelemetry } from '../observability/telemetry';
import type { Router, RouterRequest, RouterResponse } from './router';
import type { ExtenderDeps, ExtenderOverrides } from './wiring';
import { wireExtender } from './wiring';

export interface ExtenderHandlerOptions extends ExtenderOverrides {
  /** @default process.env */
  readonly env?: Env;
  /** @default a new Telemetry for the extender service */
  readonly telemetry?: Telemetry;
}

/** The extender's router with its dependencies wired on first use. */
export interface Extender {
  readonly route: Router;
  readonly telemetry: Telemetry;
  readonly deps: () => Promise<ExtenderDeps>;
}

/**
 * Wires lazily, and answers a configuration error instead of throwing it: a
 * throw at import would crash the Lambda's cold start with no useful reply,
 * while kube-scheduler shows a 500 naming the variable in the pod's events.
 */
export function createExtender(options: ExtenderHandlerOptions = {}): Extender {
  const env = options.env ?? process.env;
  const telemetry = options.telemetry ?? createTelemetry(SERVICE.extender);
  const deps = lazy(() => wireExtender(env, telemetry, options));
  const route: Router = async (request) => {
    let router: Router;
    try {
      ({ router } = await deps());
    } catch (error) {
      const message = `extender configuration error: ${errorMessage(error)}`;
      telemetry.logger.error(message);
      return { status: 500, body: { Error: message } };
    }
    return router(request);
  };
  return { route, telemetry, deps };
}

/** The extender behind an internal ALB (Lambda target, multi-value headers off). */
export function createExtenderHandler(options: ExtenderHandlerOptions = {}): LambdaHandler<ALBEvent, ALBResult> {
  return albHandlerOf(createExtender(options));
}

/**
 * The ALB handler of an extender built beforehand (handler.ts warms it at
 * INIT first); every line it logs, the per-request decision included,
 * carries the invocation's Lambda context.
 */
export function albHandlerOf({ route, telemetry }: Extender): LambdaHandler<ALBEvent, ALBResult> {
  return instrumentHandler(telemetry, async (event: ALBEvent, context) => {
    try {
      return toAlbResult(await route({ ...routerRequestOf(event), budgetMs: callBudgetMs(context.getRemainingTimeInMillis()) }));
    } catch (error) {
      return toAlbResult({ status: 500, body: { Error: `internal error: ${errorMessage(error)}` } });
    }
  });
}

function routerRequestOf(event: ALBEvent): RouterRequest {
  const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return { method: event.httpMethod ?? 'GET', path: event.path ?? '/', body };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function toAlbResult(response: RouterResponse): ALBResult {
  return {
    statusCode: response.status,
    statusDescription: `${response.status} ${STATUS_TEXT[response.status] ?? ''}`.trim(),
    headers: { 'content-type': 'application/json', ...response.headers },
    body: JSON.stringify(response.body),
    isBase64Encoded: false,
  };
}
