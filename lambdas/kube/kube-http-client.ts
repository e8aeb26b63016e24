import { Agent, request } from 'node:https';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { BearerTokenSource } from './eks-token-source';
import { isRecord } from '../scheduling/kube-json';
import { errorMessage } from '../common/error-message';
import type { WatchEnd, WatchLimits } from './watch-stream';
import { readWatchStream } from './watch-stream';
import { listHeadOf } from './list-head';
import type { ProtobufItemReader } from './protobuf/kube-protobuf';
import { decodeKubeList, decodeKubeStatus, isKubeProtobuf, KUBE_PROTOBUF_CONTENT_TYPE, protobufListHeadOf } from './protobuf/kube-protobuf';

/**
 * A read-only Kubernetes list and watch client over node:https. The extender
 * only lists and watches nodes and pods; @kubernetes/client-node (with its generated models and
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
  /** Whole-request deadline for a list (connect, headers and body); for a watch, until its headers arrive. */
  readonly timeoutMs?: number;
  /** A response body larger than this is refused rather than buffered. */
  readonly maxResponseBytes?: number;
  /** Told about every response once its body is read (or the watch is closed): what the API server cost, for benchmarks and tests. */
  readonly onResponse?: (response: KubeResponseInfo) => void;
}

/** One API call as the onResponse hook sees it. */
export interface KubeResponseInfo {
  /** `GET <path>?<query>` as sent. */
  readonly request: string;
  readonly watch: boolean;
  /** HTTP status; 0 when no response arrived (connection error, timeout). */
  readonly status: number;
  /** Body bytes read: all of a list's, or what a watch delivered until it was closed. */
  readonly bytes: number;
}

export interface KubeListQuery {
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * Asks for kube-apiserver's protobuf encoding and reads each item with
   * this (see protobuf/core-v1-readers.ts). A server that answers JSON
   * instead (a type without protobuf, a proxy) is read as JSON.
   */
  readonly protobufItem?: ProtobufItemReader;
}

/** The part of a Kubernetes list response we rely on; items stay unknown until the caller checks them. */
export interface KubeList {
  readonly items: readonly unknown[];
  readonly continueToken: string | undefined;
  /** The list's resourceVersion: a watch from it sees every change after this list. */
  readonly resourceVersion: string | undefined;
}

export interface KubeWatchQuery {
  /** Changes after this version are sent (the API server's backlog first, then live ones). */
  readonly resourceVersion: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** The API server ends the watch after this long: a guard should we fail to close it. */
  readonly timeoutSeconds?: number;
}

export interface KubeHttpClient {
  /** One page of a collection, e.g. `/api/v1/pods`. */
  list(path: string, query?: KubeListQuery): Promise<KubeList>;
  /** Every page of a collection, following `continue` until the server has no more. */
  listPages(path: string, query?: Omit<KubeListQuery, 'continue'>): AsyncGenerator<KubeList>;
  /**
   * Watches a collection (bookmarks on) and hands each event, parsed but
   * unchecked, to `onEvent` until the stream goes idle, `maxMs` passes, the
   * server ends it or `onEvent` returns false. A non-2xx answer rejects with a
   * KubeApiError (410 Gone: the version is too old to resume from).
   */
  watch(path: string, query: KubeWatchQuery, onEvent: (event: unknown) => boolean | void, limits: WatchLimits): Promise<WatchEnd>;
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
  const report = options.onResponse ?? (() => undefined);
  // Keep-alive: a warm Lambda reuses the TLS session across refreshes and pages.
  const agent = new Agent({ keepAlive: true, ca: connection.caPem });

  /** Sends a GET; `onResponse` gets the response (any status), `onError` a failure before it. */
  async function send(what: string, accept: string, signal: AbortSignal, onResponse: (res: IncomingMessage) => void, onError: (error: Error) => void): Promise<ClientRequest> {
    const token = await connection.tokens.token();
    const req = request(
      {
        protocol: 'https:',
        hostname: base.hostname,
        port: base.port || 443,
        path: `${basePath}${what.slice('GET '.length)}`,
        method: 'GET',
        agent,
        headers: { Accept: accept, Authorization: `Bearer ${token}` },
        signal,
      },
      onResponse,
    );
    req.on('error', onError);
    req.end();
    return req;
  }

  /** `onHead` sees the body's first bytes as they arrive (and whether they are protobuf), until it returns true. */
  async function get(path: string, params: URLSearchParams, accept: string, onHead?: (head: Buffer, protobuf: boolean) => boolean): Promise<ResponseBody> {
    const what = `GET ${path}${params.size > 0 ? `?${params.toString()}` : ''}`;
    return new Promise<ResponseBody>((resolve, reject) => {
      let status = 0;
      const fail = (error: unknown, direction = 'to') => {
        report({ request: what, watch: false, status, bytes: 0 });
        reject(new Error(`${what} ${direction} ${base.host}: ${failure(error as Error, timeoutMs)}`));
      };
      const sent = send(
        what,
        accept,
        AbortSignal.timeout(timeoutMs),
        (res) => {
          status = res.statusCode ?? 0;
          const protobuf = isKubeProtobuf(res.headers['content-type']);
          const watchHead = onHead && ((head: Buffer) => onHead(head, protobuf));
          readBody(res, maxBytes, status >= 200 && status < 300 ? watchHead : undefined).then(
            (body) => {
              report({ request: what, watch: false, status, bytes: body.length });
              if (status < 200 || status >= 300) reject(apiError(what, status, body, protobuf));
              else resolve({ protobuf, bytes: body });
            },
            (error: unknown) => {
              res.destroy();
              fail(error, 'from');
            },
          );
        },
        fail,
      );
      sent.catch(reject);
    });
  }

  /** `onContinue` learns the page's continue token as soon as the head of the body shows it (see list-head.ts). */
  async function list(path: string, query: KubeListQuery = {}, onContinue?: (token: string | undefined) => void): Promise<KubeList> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.continue) params.set('continue', query.continue);
    if (query.labelSelector) params.set('labelSelector', query.labelSelector);
    if (query.fieldSelector) params.set('fieldSelector', query.fieldSelector);
    const onHead =
      onContinue &&
      ((head: Buffer, protobuf: boolean): boolean => {
        const read = protobuf ? protobufListHeadOf(head) : listHeadOf(head.toString('utf8'));
        if (read.state === 'known') onContinue(read.continueToken);
        return read.state !== 'more';
      });
    const item = query.protobufItem;
    const response = await get(path, params, item === undefined ? 'application/json' : `${KUBE_PROTOBUF_CONTENT_TYPE}, application/json`, onHead);
    if (response.protobuf) {
      if (item === undefined) throw new Error(`GET ${path}: the API server answered protobuf to a request for JSON`);
      try {
        return decodeKubeList(response.bytes, item);
      } catch (error) {
        throw new Error(`GET ${path}: response is not a protobuf Kubernetes list (${errorMessage(error)})`);
      }
    }
    let body: unknown;
    try {
      body = JSON.parse(response.bytes.toString('utf8'));
    } catch (error) {
      throw new Error(`GET ${path}: response is not JSON (${errorMessage(error)})`);
    }
    if (!isRecord(body) || !Array.isArray(body.items)) throw new Error(`GET ${path}: response is not a Kubernetes list (no items array)`);
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    const token = typeof metadata.continue === 'string' && metadata.continue !== '' ? metadata.continue : undefined;
    const resourceVersion = typeof metadata.resourceVersion === 'string' && metadata.resourceVersion !== '' ? metadata.resourceVersion : undefined;
    return { items: body.items as unknown[], continueToken: token, resourceVersion };
  }

  /** A page being fetched, and its continue token as soon as it is known (from the head of the body, else from the whole). */
  function fetchPage(path: string, query: KubeListQuery): { readonly token: Promise<string | undefined>; readonly page: Promise<KubeList> } {
    let settle!: (token: string | undefined) => void;
    const token = new Promise<string | undefined>((resolve) => {
      settle = resolve;
    });
    const page = list(path, query, settle);
    // The page's own outcome settles the token too, when the head did not tell it (or the call failed).
    page.then(
      (p) => settle(p.continueToken),
      () => settle(undefined),
    );
    return { token, page };
  }

  /**
   * The next page is asked for as soon as this one's continue token is
   * known, so the API server prepares it while this one is received, parsed
   * and reduced by the caller: at 50,000 pods the pages no longer queue one
   * behind the other's processing. At most one page is fetched ahead, so
   * memory holds two pages, not the whole list.
   */
  async function* listPages(path: string, query: Omit<KubeListQuery, 'continue'> = {}): AsyncGenerator<KubeList> {
    let current = fetchPage(path, query);
    for (;;) {
      const token = await current.token;
      const next = token === undefined ? undefined : fetchPage(path, { ...query, continue: token });
      // A caller that stops early (or a failure of this page) leaves the fetched-ahead page unread, not unhandled.
      next?.page.catch(() => undefined);
      const page = await current.page;
      if (page.continueToken !== token) throw new Error(`GET ${path}: the continue token in the body's head differs from the parsed body's`);
      yield page;
      if (next === undefined) return;
      current = next;
    }
  }

  async function watch(path: string, query: KubeWatchQuery, onEvent: (event: unknown) => boolean | void, limits: WatchLimits): Promise<WatchEnd> {
    const params = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', resourceVersion: query.resourceVersion });
    if (query.labelSelector) params.set('labelSelector', query.labelSelector);
    if (query.fieldSelector) params.set('fieldSelector', query.fieldSelector);
    if (query.timeoutSeconds !== undefined) params.set('timeoutSeconds', String(query.timeoutSeconds));
    const what = `GET ${path}?${params.toString()}`;
    // Aborted by us to close the stream; the timeout covers only the wait for headers.
    const controller = new AbortController();
    const headersDeadline = setTimeout(() => controller.abort(new TimeoutError()), timeoutMs);
    return new Promise<WatchEnd>((resolve, reject) => {
      let status = 0;
      // Our own abort, once the stream is read, also reaches the request's error handler.
      let settled = false;
      const fail = (error: unknown) => {
        clearTimeout(headersDeadline);
        if (settled) return;
        settled = true;
        report({ request: what, watch: true, status, bytes: 0 });
        reject(new Error(`${what} to ${base.host}: ${failure(error as Error, timeoutMs)}`));
      };
      const onResponse = (res: IncomingMessage) => {
        clearTimeout(headersDeadline);
        status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          readBody(res, maxBytes).then(
            (body) => {
              settled = true;
              report({ request: what, watch: true, status, bytes: body.length });
              reject(apiError(what, status, body, isKubeProtobuf(res.headers['content-type'])));
            },
            (error: unknown) => fail(error),
          );
          return;
        }
        void readWatchStream(res, { ...limits, maxBytes }, onEvent).then(({ end, bytes, error }) => {
          settled = true;
          // Destroys the socket unless the server ended the response: an open watch cannot go back to the pool.
          if (end !== 'closed') controller.abort();
          report({ request: what, watch: true, status, bytes });
          if (error === undefined) resolve(end);
          else reject(new Error(`${what} from ${base.host}: ${errorMessage(error)}`));
        });
      };
      send(what, 'application/json', controller.signal, onResponse, fail).catch((error: unknown) => {
        clearTimeout(headersDeadline);
        reject(error as Error);
      });
    });
  }

  return { list, listPages, watch };
}

/** A 2xx body, and whether the server encoded it in protobuf (it chooses among what we accept). */
interface ResponseBody {
  readonly protobuf: boolean;
  readonly bytes: Buffer;
}

class TimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** The deadline aborts the request; say so rather than "This operation was aborted". */
function failure(error: Error, timeoutMs: number): string {
  return error.name === 'AbortError' || error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : error.message;
}

/** The head of a list body that may show its metadata; kube-apiserver's is a few hundred bytes. */
const HEAD_BYTES = 64 * 1024;

function readBody(res: IncomingMessage, maxBytes: number, onHead?: (head: Buffer) => boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.resume();
      reject(new Error(`response of ${declared} bytes exceeds the ${maxBytes}-byte limit`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let watchHead = onHead;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        reject(new Error(`response exceeds the ${maxBytes}-byte limit`));
        return;
      }
      chunks.push(chunk);
      if (watchHead !== undefined) {
        const done = watchHead(chunks.length === 1 ? chunk : Buffer.concat(chunks));
        if (done || size >= HEAD_BYTES) watchHead = undefined;
      }
    });
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

/** "GET /api/v1/pods: 403 Forbidden: pods is forbidden: ..." from the API's Status object when there is one. */
function apiError(what: string, status: number, body: Buffer, protobuf: boolean): KubeApiError {
  const { reason, detail } = protobuf ? protobufStatus(body) : jsonStatus(body);
  const message = `${what}: ${status}${reason ? ` ${reason}` : ''}${detail ? `: ${detail}` : ''}`;
  return new KubeApiError(message, status, reason);
}

interface StatusText {
  readonly reason: string | undefined;
  readonly detail: string;
}

function jsonStatus(body: Buffer): StatusText {
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
  return { reason, detail };
}

/** kube-apiserver encodes its errors as it would have the answer: in protobuf when we asked for it. */
function protobufStatus(body: Buffer): StatusText {
  const decoded = decodeKubeStatus(body);
  return { reason: decoded?.reason || undefined, detail: decoded?.message ?? `(${body.length} bytes of protobuf that are not a Status)` };
}
