// A local stand-in for an internal Application Load Balancer with a Lambda
// target: each HTTP request becomes the ALBEvent the real ALB sends (single-value
// headers and query strings, i.e. multi-value headers off, the default) and the
// handler's ALBResult becomes the HTTP response. The ALB's 1 MB limits apply.
// https://docs.aws.amazon.com/elasticloadbalancing/latest/application/lambda-functions.html
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { startTlsFront, type TlsFront } from './alb-tls-front';
import { UPSTREAM_KEEP_ALIVE_MS } from './alb-tls-front-process';
import type { ALBEvent, ALBResult, Callback, Context } from 'aws-lambda';
import { localLambdaContext } from '../aws/lambda-context';

/** 1 MB, the ALB's cap on the request body passed to a Lambda target. */
export const ALB_LAMBDA_MAX_REQUEST_BODY_BYTES = 1024 * 1024;
/** 1 MB, the ALB's cap on the Lambda's response JSON; more becomes 502. */
export const ALB_LAMBDA_MAX_RESPONSE_BYTES = 1024 * 1024;

export const LOCAL_TARGET_GROUP_ARN =
  'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/local-lambda/0123456789abcdef';

/** Any Lambda handler for ALB events: async, or callback style. */
export type AlbLambdaHandler = (
  event: ALBEvent,
  context: Context,
  callback: Callback<ALBResult>,
) => void | Promise<ALBResult | undefined | void>;

export interface AlbAdapterOptions {
  handler: AlbLambdaHandler;
  functionName?: string;
  targetGroupArn?: string;
  /** Lambda timeout the handler sees through context.getRemainingTimeInMillis(). */
  timeoutMs?: number;
  /**
   * An HTTPS listener with mutual TLS in verify mode, as the deployed ALB's:
   * a client must present a certificate issued by a CA of `clientCaBundle`,
   * or the TLS handshake fails and nothing reaches the handler.
   */
  tls?: AlbMutualTls;
  /**
   * The Lambda's reserved concurrency, enforced as Lambda does: an invocation
   * that finds this many already running is throttled (the handler never
   * runs) and the ALB answers 503. Undefined: no limit.
   */
  reservedConcurrency?: number;
  /**
   * Least time an invocation holds its concurrency slot, however fast the
   * handler: a deployed `/filter` takes about 11 ms at 5,000 nodes
   * (docs/benchmarks.md), while the harness's few nodes take well under one,
   * so without it no local flood could use up `reservedConcurrency`. 0 by default.
   */
  minInvocationMs?: number;
}

export interface AlbMutualTls {
  /** The listener's server certificate and key (PEM). */
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** The trust store: PEM CA certificates a client certificate must chain to. */
  readonly clientCaBundle: string;
}

// The ALB passes these bodies as text; anything else is base64 with isBase64Encoded.
const TEXT_CONTENT_TYPES = [/^text\//, /^application\/(json|javascript|xml)/, /\+json/, /\+xml/];
const isTextContentType = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === '' || TEXT_CONTENT_TYPES.some((re) => re.test(contentType.toLowerCase()));

const STATUS_TEXT: Record<number, string> = { 413: 'Request Entity Too Large', 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable' };

/**
 * Faults of the Lambda service behind the ALB that no local handler can
 * produce, injected on purpose by a test (every other answer comes from the
 * real handler):
 * - `lambda-throttled`: Lambda refuses the invoke (TooManyRequestsException,
 *   reserved concurrency used up), so the handler never runs and the ALB
 *   answers 503.
 */
export type AlbLambdaFault = 'lambda-throttled';

function sendAlbError(res: ServerResponse, status: 413 | 502 | 503): void {
  const text = `${status} ${STATUS_TEXT[status]}`;
  // The real ALB answers with a small HTML page and closes the connection.
  res.writeHead(status, { 'content-type': 'text/html', connection: 'close', server: 'awselb/2.0' });
  res.end(`<html>\r\n<head><title>${text}</title></head>\r\n<body>\r\n<center><h1>${text}</h1></center>\r\n</body>\r\n</html>\r\n`);
}

/** Builds the ALBEvent for one request. Exported for tests of the mapping. */
export function albEventFromRequest(req: IncomingMessage, body: Buffer, targetGroupArn: string, behindTlsListener = false): ALBEvent {
  const url = new URL(req.url ?? '/', 'http://alb.local');
  const queryStringParameters: Record<string, string> = {};
  // The ALB neither decodes query parameters nor keeps more than the last value.
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    queryStringParameters[eq === -1 ? pair : pair.slice(0, eq)] = eq === -1 ? '' : pair.slice(eq + 1);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? (value[value.length - 1] ?? '') : value;
  }
  headers['x-forwarded-for'] = req.socket.remoteAddress ?? '127.0.0.1';
  // Behind the TLS listener (alb-tls-front.ts) the request arrives with the
  // forwarded protocol, port and client-certificate headers already set.
  if (!behindTlsListener) {
    headers['x-forwarded-proto'] = 'http';
    headers['x-forwarded-port'] = String(req.socket.localPort ?? 80);
    for (const name of Object.keys(headers)) if (name.startsWith('x-amzn-mtls-')) delete headers[name];
  }
  headers['x-amzn-trace-id'] = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  const text = isTextContentType(headers['content-type']);
  return {
    requestContext: { elb: { targetGroupArn } },
    httpMethod: req.method ?? 'GET',
    path: url.pathname,
    queryStringParameters,
    headers,
    body: text ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !text,
  };
}

const sleepFor = (ms: number): Promise<void> => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

function isAlbResult(value: unknown): value is ALBResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    'statusCode' in value &&
    Number.isInteger((value as { statusCode: unknown }).statusCode)
  );
}

function invoke(handler: AlbLambdaHandler, event: ALBEvent, context: Context): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const callback: Callback<ALBResult> = (error, result) => {
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    };
    try {
      const returned = handler(event, context, callback);
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then(resolve, reject);
      }
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

function writeAlbResult(res: ServerResponse, result: ALBResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values.map(String);
  }
  const body = result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  headers['content-length'] = String(body.length);
  res.writeHead(result.statusCode, result.statusDescription?.replace(/^\d+\s*/, '') || undefined, headers);
  res.end(body);
}

/** An HTTP server on 127.0.0.1 fronting one ALB Lambda handler. stop()/start() keep the port. */
export class AlbAdapter {
  private server: Server | undefined;
  private tlsFront: TlsFront | undefined;
  private boundPort: number | undefined;
  private readonly sockets = new Set<Socket>();
  private fault: AlbLambdaFault | undefined;
  private faulted = 0;
  private coldStartMs = 0;
  private coldStarted = 0;
  private warmIdle = 0;
  private completed = 0;
  private running = 0;
  private throttled = 0;
  private refusedHandshakes = 0;

  constructor(private readonly options: AlbAdapterOptions) {}

  /** Injects `fault` into every request from now on; undefined clears it. */
  injectFault(fault: AlbLambdaFault | undefined): void {
    this.fault = fault;
  }

  /** Requests answered by an injected fault instead of the handler. */
  get faultedRequests(): number {
    return this.faulted;
  }

  /**
   * Lambda's containers from now on: a request that finds no idle warm
   * container starts a new one, whose INIT takes `initMs` before the handler
   * sees the request (0.29 vCPU at 512 MB and a big cluster to list make it
   * seconds); a container that has answered stays warm for the next. Like
   * Lambda, an invocation runs to the end even when the caller has given up,
   * and a retry that comes while the first container is still busy starts a
   * second cold one. All containers start cold (as after a deploy). 0 turns
   * it off. An injected fault: a local handler starts in milliseconds.
   */
  injectColdStarts(initMs: number): void {
    this.coldStartMs = initMs;
    this.warmIdle = 0;
  }

  /** Requests that waited for an injected cold start. */
  get coldStarts(): number {
    return this.coldStarted;
  }

  /** Invocations refused because `reservedConcurrency` were already running (answered 503). */
  get throttledRequests(): number {
    return this.throttled;
  }

  /** TLS handshakes that failed (e.g. no client certificate, or one from another CA); none reached the handler. */
  get refusedTlsHandshakes(): number {
    return this.refusedHandshakes;
  }

  /** Invocations that have run to the end, whether or not their caller was still waiting. */
  get completedInvocations(): number {
    return this.completed;
  }

  get port(): number {
    if (this.boundPort === undefined) throw new Error('the ALB adapter has never been started');
    return this.boundPort;
  }

  get url(): string {
    return `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  get isRunning(): boolean {
    return this.server !== undefined;
  }

  /** Listens on the given port, else on the port of the previous start, else on a free one. */
  async start(port?: number): Promise<string> {
    if (this.server) return this.url;
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    // Behind the TLS front, idle sockets are closed by the front first (alb-tls-front-process.ts).
    server.keepAliveTimeout = UPSTREAM_KEEP_ALIVE_MS;
    const { tls } = this.options;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // With TLS this is the plain listener behind the TLS one, on a port of its own.
      server.listen(tls ? 0 : (port ?? this.boundPort ?? 0), '127.0.0.1', () => resolve());
    });
    this.server = server;
    const plainPort = (server.address() as AddressInfo).port;
    if (tls) {
      this.tlsFront = await startTlsFront({
        ...tls,
        upstreamPort: plainPort,
        port: port ?? this.boundPort ?? 0,
        onRefusedHandshakes: (count) => {
          this.refusedHandshakes += count;
        },
      });
      this.boundPort = this.tlsFront.port;
    } else {
      this.boundPort = plainPort;
    }
    return this.url;
  }

  /**
   * The listener's certificate or trust store bundle changed (ACM re-import,
   * ModifyTrustStore): handshakes from now on use the new one.
   */
  async updateTls(change: Partial<AlbMutualTls>): Promise<void> {
    if (!this.tlsFront) throw new Error('the ALB adapter has no TLS listener running');
    await this.tlsFront.update(change);
  }

  /** Stops accepting connections and drops open ones, like a target that went away. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await this.tlsFront?.stop();
    this.tlsFront = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    try {
      for await (const chunk of req) {
        const buffer = chunk as Buffer;
        size += buffer.length;
        if (size > ALB_LAMBDA_MAX_REQUEST_BODY_BYTES) tooLarge = true;
        else chunks.push(buffer);
      }
    } catch {
      res.destroy();
      return;
    }
    if (tooLarge) {
      sendAlbError(res, 413);
      return;
    }
    if (this.fault === 'lambda-throttled') {
      this.faulted++;
      sendAlbError(res, 503);
      return;
    }
    const limit = this.options.reservedConcurrency;
    if (limit !== undefined && this.running >= limit) {
      this.throttled++;
      sendAlbError(res, 503);
      return;
    }
    this.running++;
    const modelsContainers = this.coldStartMs > 0;
    if (modelsContainers) {
      if (this.warmIdle > 0) this.warmIdle--;
      else {
        this.coldStarted++;
        await new Promise((resolve) => setTimeout(resolve, this.coldStartMs));
      }
    }
    try {
      const floor = sleepFor(this.options.minInvocationMs ?? 0);
      await this.invokeAndAnswer(req, res, chunks);
      await floor;
    } finally {
      this.running--;
      this.completed++;
      if (modelsContainers) this.warmIdle++;
    }
  }

  private async invokeAndAnswer(req: IncomingMessage, res: ServerResponse, chunks: Buffer[]): Promise<void> {
    const event = albEventFromRequest(req, Buffer.concat(chunks), this.options.targetGroupArn ?? LOCAL_TARGET_GROUP_ARN, this.options.tls !== undefined);
    const context = localLambdaContext({ functionName: this.options.functionName ?? 'local-function', timeoutMs: this.options.timeoutMs ?? 30_000 });
    let result: unknown;
    try {
      result = await invoke(this.options.handler, event, context);
    } catch (error) {
      // A Lambda error reaches the client as 502, as behind the real ALB.
      console.error(`[alb-adapter] handler failed: ${error instanceof Error ? error.stack : String(error)}`);
      sendAlbError(res, 502);
      return;
    }
    if (!isAlbResult(result) || Buffer.byteLength(JSON.stringify(result)) > ALB_LAMBDA_MAX_RESPONSE_BYTES) {
      sendAlbError(res, 502);
      return;
    }
    writeAlbResult(res, result);
  }
}

/** Starts an adapter for `handler` and returns it (read `.url`). */
export async function startAlbAdapter(options: AlbAdapterOptions & { port?: number }): Promise<AlbAdapter> {
  const adapter = new AlbAdapter(options);
  await adapter.start(options.port);
  return adapter;
}
