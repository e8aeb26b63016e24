import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { BearerTokenSource } from './eks-token-source';
import { isRecord } from '../scheduling/kube-json';
import { errorMessage } from '../common/error-message';

/**
 * A read-only Kubernetes list client over node:https. The extender only lists
 * nodes and pods; @kubernetes/client-node (with its generated models and
 * dependencies) is most of a Lambda bundle and cannot be tree-shaken, so the
 * extender uses this instead. Writers (labeler, reconciler) keep client-node.
 */

/** Where the API server is and how to authenticate to it. */
export interface KubeConnection {
  /** https URL of the API server (a path prefix, as some proxies use, is kept). */
  readonly server: string;
  /** PEM of the CA that signed the API server's certificate; it replaces the system CAs. */
  readonly caPem: string;
  readonly tokens: BearerTokenSource;
}

export interface KubeHttpClientOptions {
  /** Whole-request deadline (connect, headers and body). */
  readonly timeoutMs?: number;
  /** A response body larger than this is refused rather than buffered. */
  readonly maxResponseBytes?: number;
}

export interface KubeListQuery {
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** The part of a Kubernetes list response we rely on; items stay unknown until the caller checks them. */
export interface KubeList {
  readonly items: readonly unknown[];
  readonly continueToken: string | undefined;
}

export interface KubeHttpClient {
  /** One page of a collection, e.g. `/api/v1/pods`. */
  list(path: string, query?: KubeListQuery): Promise<KubeList>;
  /** Every page of a collection, following `continue` until the server has no more. */
  listPages(path: string, query?: Omit<KubeListQuery, 'continue'>): AsyncGenerator<readonly unknown[]>;
}

export const DEFAULT_KUBE_TIMEOUT_MS = 20_000;
/** A 2,000-pod page with managedFields is tens of MB; this bounds a runaway response well above that. */
export const DEFAULT_KUBE_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

/**
 * An API error with the HTTP status and the Status object's message. `code`
 * mirrors client-node's ApiException so kubeStatusCode/isKubeNotFound work on both.
 */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';

  constructor(
    message: string,
    readonly code: number,
    readonly reason: string | undefined,
  ) {
    super(message);
  }
}

export function createKubeHttpClient(connection: KubeConnection, options: KubeHttpClientOptions = {}): KubeHttpClient {
  const base = new URL(connection.server);
  if (base.protocol !== 'https:') throw new Error(`Kubernetes API server ${connection.server} must be an https URL (the bearer token is sent to it)`);
  const basePath = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_KUBE_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_KUBE_MAX_RESPONSE_BYTES;
  // Keep-alive: a warm Lambda reuses the TLS session across refreshes and pages.
  const agent = new Agent({ keepAlive: true, ca: connection.caPem });

  async function get(path: string, params: URLSearchParams): Promise<unknown> {
    const token = await connection.tokens.token();
    const search = params.size > 0 ? `?${params.toString()}` : '';
    const target = `${basePath}${path}${search}`;
    const what = `GET ${path}${search}`;
    return new Promise<unknown>((resolve, reject) => {
      const req = request(
        {
          protocol: 'https:',
          hostname: base.hostname,
          port: base.port || 443,
          path: target,
          method: 'GET',
          agent,
          headers: { Accept: 'application/json', Authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(timeoutMs),
        },
        (res) => {
          readBody(res, maxBytes).then(
            (body) => {
              const status = res.statusCode ?? 0;
              if (status < 200 || status >= 300) {
                reject(apiError(what, status, body));
                return;
              }
              try {
                resolve(JSON.parse(body.toString('utf8')));
              } catch (error) {
                reject(new Error(`${what}: response is not JSON (${errorMessage(error)})`));
              }
            },
            (error: unknown) => {
              req.destroy();
              reject(new Error(`${what} from ${base.host}: ${failure(error as Error, timeoutMs)}`));
            },
          );
        },
      );
      req.on('error', (error) => reject(new Error(`${what} to ${base.host}: ${failure(error, timeoutMs)}`)));
      req.end();
    });
  }

  async function list(path: string, query: KubeListQuery = {}): Promise<KubeList> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.continue) params.set('continue', query.continue);
    if (query.labelSelector) params.set('labelSelector', query.labelSelector);
    if (query.fieldSelector) params.set('fieldSelector', query.fieldSelector);
    const body = await get(path, params);
    if (!isRecord(body) || !Array.isArray(body.items)) throw new Error(`GET ${path}: response is not a Kubernetes list (no items array)`);
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const token = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
    return { items: body.items as unknown[], continueToken: token };
  }

  async function* listPages(path: string, query: Omit<KubeListQuery, 'continue'> = {}): AsyncGenerator<readonly unknown[]> {
    let token: string | undefined;
    do {
      const page = await list(path, token === undefined ? query : { ...query, continue: token });
      yield page.items;
      token = page.continueToken;
    } while (token !== undefined);
  }

  return { list, listPages };
}

/** The deadline aborts the request; say so rather than "This operation was aborted". */
function failure(error: Error, timeoutMs: number): string {
  return error.name === 'AbortError' || error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : error.message;
}

function readBody(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.resume();
      reject(new Error(`response of ${declared} bytes exceeds the ${maxBytes}-byte limit`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new Error(`response exceeds the ${maxBytes}-byte limit`));
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

/** "GET /api/v1/pods: 403 Forbidden: pods is forbidden: ..." from the API's Status object when there is one. */
function apiError(what: string, status: number, body: Buffer): KubeApiError {
  let reason: string | undefined;
  let detail = body.subarray(0, 500).toString('utf8').trim();
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (isRecord(parsed) && parsed.kind === 'Status') {
      if (typeof parsed.reason === 'string') reason = parsed.reason;
      if (typeof parsed.message === 'string') detail = parsed.message;
    }
  } catch {
    // Not a Status object (e.g. a proxy's HTML page): keep the start of the raw body.
  }
  const message = `${what}: ${status}${reason ? ` ${reason}` : ''}${detail ? `: ${detail}` : ''}`;
  return new KubeApiError(message, status, reason);
}
