import type { ALBEvent, ALBResult } from 'aws-lambda';
import type { ExtenderApp } from './app';
import { createExtenderApp, flushTelemetry } from './app';
import type { RouterResponse } from './router';
import { errorMessage } from './verbs';

/** Created once per Lambda container: the cluster cache and token survive between invocations. */
const app = createExtenderApp();

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The extender behind an internal ALB (Lambda target, multi-value headers off). */
export const handler = createAlbHandler(app);

/** The ALB adapter around any extender app (the benchmarks host one over an in-memory cluster cache). */
export function createAlbHandler(extender: ExtenderApp): (event: ALBEvent) => Promise<ALBResult> {
  return async function albHandler(event: ALBEvent): Promise<ALBResult> {
    try {
      const body = event.body == null ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
      return toAlbResult(await extender.router({ method: event.httpMethod ?? 'GET', path: event.path ?? '/', body }));
    } catch (error) {
      return toAlbResult({ status: 500, body: { Error: `internal error: ${errorMessage(error)}` } });
    } finally {
      flushTelemetry(extender.telemetry);
    }
  };
}

export function toAlbResult(response: RouterResponse): ALBResult {
  return {
    statusCode: response.status,
    statusDescription: `${response.status} ${STATUS_TEXT[response.status] ?? ''}`.trim(),
    headers: { 'content-type': 'application/json', ...response.headers },
    body: JSON.stringify(response.body),
    isBase64Encoded: false,
  };
}
