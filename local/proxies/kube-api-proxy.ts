// A counting reverse proxy in front of kube-apiserver for one client (the
// extender): it terminates TLS with the API server's own serving certificate,
// so the client verifies it with the same CA, and forwards every request over
// HTTPS. What it counts is what crossed the wire, not what the code under test
// says it did: each request by verb and resource, the response bytes the API
// server sent, and the raw bytes (TLS included) the client's sockets received.
// The scale benchmark counts with it. Given a fault plan (fault-plan.ts), as
// the API-fault e2e tests give it, it also answers slowly, refuses, throttles
// or cuts a response mid-stream: faults a healthy API server does not produce
// on cue.
import { Agent, createServer, request } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { injectFault, passBody, type AnsweredFault, type ProxyAnswer } from './fault-injection';
import { Attempts, type FaultPlan } from './fault-plan';
import { listenOnLoopback } from '../common/ports';

export interface ProxyCounts {
  /** Requests by "VERB /path" (LIST, WATCH or GET; namespaces and names kept as sent). */
  readonly calls: Readonly<Record<string, number>>;
  /** Answers other than 2xx, by "VERB /path status". */
  readonly failed: Readonly<Record<string, number>>;
  /** Milliseconds the calls of each key were open (request received to response finished or closed), summed. */
  readonly openMs: Readonly<Record<string, number>>;
  /** Response body bytes from the API server (as sent: the client asked for no compression, so JSON). */
  readonly responseBytes: number;
  /** Bytes written to the client's TCP sockets: headers, bodies and TLS framing. */
  readonly wireBytes: number;
}

export interface CountingProxy {
  readonly url: string;
  /** Totals since the proxy started. */
  counts(): ProxyCounts;
  stop(): Promise<void>;
}

/** One call as the proxy sees it: its key ("LIST /api/v1/pods") and its full URL. */
export interface KubeCall {
  readonly key: string;
  readonly url: string;
}

export interface CountingProxyOptions {
  /** Asked for each call, with which attempt of the same key it is; none (or undefined answers) forwards every call as it is. */
  readonly faults?: FaultPlan<KubeCall>;
  /** https URL of the API server. */
  readonly target: string;
  readonly caPem: string;
  /** The API server's serving certificate and key (its --cert-dir). */
  readonly certPem: string;
  readonly keyPem: string;
}

/** The reason a Kubernetes Status carries for a status code, as the API server writes it. */
const STATUS_REASONS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The API server's own answer to a fault: a Status object; a throttle is API Priority and Fairness's 429 with Retry-After. */
export function kubeErrorAnswer(fault: AnsweredFault): ProxyAnswer {
  const status = fault.kind === 'throttle' ? 429 : fault.status;
  const reason = (fault.kind === 'status' ? fault.reason : undefined) ?? STATUS_REASONS[status] ?? 'Unknown';
  const message = (fault.kind === 'status' ? fault.message : undefined) ?? (status === 429 ? 'Too many requests, please try again later.' : `the server answered ${status}`);
  const body = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code: status };
  return { status, headers: { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '1' } : {}) }, body: JSON.stringify(body) };
}

/** "LIST /api/v1/pods", "WATCH /api/v1/nodes", "GET /api/v1/nodes/x". */
export function callKey(method: string, url: string): string {
  const parsed = new URL(url, 'https://proxy.local');
  const watch = parsed.searchParams.get('watch');
  const verb = method !== 'GET' ? method : watch === 'true' || watch === '1' ? 'WATCH' : isCollection(parsed.pathname) ? 'LIST' : 'GET';
  return `${verb} ${parsed.pathname}`;
}

/** /api/v1/pods, /api/v1/namespaces/x/pods, /apis/g/v/res: an even number of segments after the group version. */
function isCollection(path: string): boolean {
  const parts = path.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  return rest.length % 2 === 1;
}

/** Difference b − a of two count snapshots. */
export function countsBetween(a: ProxyCounts, b: ProxyCounts): ProxyCounts {
  const calls: Record<string, number> = {};
  const openMs: Record<string, number> = {};
  for (const [key, n] of Object.entries(b.calls)) {
    const d = n - (a.calls[key] ?? 0);
    if (d > 0) {
      calls[key] = d;
      openMs[key] = (b.openMs[key] ?? 0) - (a.openMs[key] ?? 0);
    }
  }
  const failed: Record<string, number> = {};
  for (const [key, n] of Object.entries(b.failed)) {
    const d = n - (a.failed[key] ?? 0);
    if (d > 0) failed[key] = d;
  }
  return { calls, failed, openMs, responseBytes: b.responseBytes - a.responseBytes, wireBytes: b.wireBytes - a.wireBytes };
}

/** What crossed the proxy: calls, failed answers, open time and bytes. */
class Counts {
  private readonly calls: Record<string, number> = {};
  private readonly openMs: Record<string, number> = {};
  private readonly failed: Record<string, number> = {};
  private responseBytes = 0;
  private closedSocketBytes = 0;
  readonly sockets = new Set<Socket>();

  call(key: string, res: ServerResponse): void {
    this.calls[key] = (this.calls[key] ?? 0) + 1;
    const started = performance.now();
    res.once('close', () => {
      this.openMs[key] = (this.openMs[key] ?? 0) + (performance.now() - started);
    });
  }

  /** An answer's status, whoever gave it (the API server or an injected fault): anything but 2xx counts as failed. */
  answered(key: string, status: number): void {
    if (status < 200 || status >= 300) this.failed[`${key} ${status}`] = (this.failed[`${key} ${status}`] ?? 0) + 1;
  }

  bytes(count: number): void {
    this.responseBytes += count;
  }

  socket(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => {
      this.closedSocketBytes += socket.bytesWritten;
      this.sockets.delete(socket);
    });
  }

  snapshot(): ProxyCounts {
    return {
      calls: { ...this.calls },
      failed: { ...this.failed },
      openMs: { ...this.openMs },
      responseBytes: this.responseBytes,
      wireBytes: this.closedSocketBytes + [...this.sockets].reduce((sum, s) => sum + s.bytesWritten, 0),
    };
  }
}

export async function startCountingProxy(options: CountingProxyOptions): Promise<CountingProxy> {
  const target = new URL(options.target);
  const upstream = new Agent({ keepAlive: true, ca: options.caPem });
  const counts = new Counts();
  const attempts = new Attempts();

  const send = (req: IncomingMessage, res: ServerResponse, key: string, cutAfterBytes?: number): void => {
    if (res.destroyed) return;
    const out = request(
      { hostname: target.hostname, port: target.port || 443, path: req.url, method: req.method, headers: { ...req.headers, host: target.host }, agent: upstream },
      (answer) => {
        const status = answer.statusCode ?? 502;
        counts.answered(key, status);
        res.writeHead(status, answer.headers);
        // Node holds the headers back until the first body chunk; a watch with
        // nothing to report sends none for a while, and the client must see
        // its headers when the API server sent them.
        res.flushHeaders();
        passBody(answer, res, cutAfterBytes, (bytes) => counts.bytes(bytes));
      },
    );
    out.on('error', () => res.destroy());
    // A client that goes away (a watch it stopped) ends the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer({ cert: options.certPem, key: options.keyPem }, (req, res) => {
    const call = { key: callKey(req.method ?? 'GET', req.url ?? '/'), url: req.url ?? '/' };
    counts.call(call.key, res);
    const fault = options.faults?.(call, attempts.next(call.key));
    const answered = injectFault(fault, req, res, { errorAnswer: kubeErrorAnswer, forward: (cutAfterBytes) => send(req, res, call.key, cutAfterBytes) });
    if (answered !== undefined) counts.answered(call.key, answered);
  });
  server.on('connection', (socket: Socket) => counts.socket(socket));
  const port = await listenOnLoopback(server);
  return {
    url: `https://127.0.0.1:${port}`,
    counts: () => counts.snapshot(),
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of counts.sockets) socket.destroy();
      upstream.destroy();
      await closed;
    },
  };
}
