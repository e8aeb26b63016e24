// A counting, fault-injecting reverse proxy in front of kube-apiserver for
// one client (the extender): it terminates TLS with the API server's own
// serving certificate, so the client verifies it with the same CA, and
// forwards every request over HTTPS. What it counts is what crossed the wire,
// not what the code under test says it did: each request by verb and
// resource, the response bytes the API server sent, and the raw bytes (TLS
// included) the client's sockets received. The scale benchmark counts with
// it; the API-fault e2e tests also make it answer slowly, refuse, or cut a
// response mid-stream (faults a healthy API server does not produce on cue).
import { Agent, createServer, request } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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

/**
 * What the proxy does to one call instead of forwarding it as it is:
 * - delay: forward it after `ms` (a slow API server or network);
 * - status: answer it itself with this status and a Kubernetes Status body,
 *   as the API server does (e.g. 403 Forbidden, 410 Expired, 500);
 * - cut: forward it, then reset the client's connection once `afterBytes`
 *   bytes of the body have passed (a watch or list cut mid-object).
 */
export type KubeFault =
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'status'; readonly status: number; readonly reason: string; readonly message: string }
  | { readonly kind: 'cut'; readonly afterBytes: number };

export interface CountingProxyOptions {
  /** Asked for each call ("LIST /api/v1/pods", its full URL); undefined forwards it as it is. */
  readonly fault?: (call: { readonly key: string; readonly url: string }) => KubeFault | undefined;
  /** https URL of the API server. */
  readonly target: string;
  readonly caPem: string;
  /** The API server's serving certificate and key (its --cert-dir). */
  readonly certPem: string;
  readonly keyPem: string;
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

export async function startCountingProxy(options: CountingProxyOptions): Promise<CountingProxy> {
  const target = new URL(options.target);
  const upstream = new Agent({ keepAlive: true, ca: options.caPem });
  const calls: Record<string, number> = {};
  const openMs: Record<string, number> = {};
  const failed: Record<string, number> = {};
  let responseBytes = 0;
  let closedSocketBytes = 0;
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const key = callKey(req.method ?? 'GET', req.url ?? '/');
    calls[key] = (calls[key] ?? 0) + 1;
    const started = performance.now();
    res.once('close', () => {
      openMs[key] = (openMs[key] ?? 0) + (performance.now() - started);
    });
    const fault = options.fault?.({ key, url: req.url ?? '/' });
    if (fault?.kind === 'status') {
      failed[`${key} ${fault.status}`] = (failed[`${key} ${fault.status}`] ?? 0) + 1;
      const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: fault.message, reason: fault.reason, code: fault.status };
      req.resume();
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status));
      return;
    }
    if (fault?.kind === 'delay') {
      // The request body (none for list and watch) waits in the socket meanwhile.
      const timer = setTimeout(() => send(req, res, key), fault.ms);
      res.once('close', () => clearTimeout(timer));
      return;
    }
    send(req, res, key, fault?.kind === 'cut' ? fault.afterBytes : undefined);
  };

  const send = (req: IncomingMessage, res: ServerResponse, key: string, cutAfterBytes?: number): void => {
    if (res.destroyed) return;
    const out = request(
      { hostname: target.hostname, port: target.port || 443, path: req.url, method: req.method, headers: { ...req.headers, host: target.host }, agent: upstream },
      (answer) => {
        const status = answer.statusCode ?? 502;
        if (status < 200 || status >= 300) failed[`${key} ${status}`] = (failed[`${key} ${status}`] ?? 0) + 1;
        res.writeHead(status, answer.headers);
        // Node holds the headers back until the first body chunk; a watch with
        // nothing to report sends none for a while, and the client must see
        // its headers when the API server sent them.
        res.flushHeaders();
        if (cutAfterBytes === undefined) {
          answer.on('data', (chunk: Buffer) => {
            responseBytes += chunk.length;
          });
          answer.pipe(res);
          return;
        }
        let passed = 0;
        answer.on('data', (chunk: Buffer) => {
          const room = cutAfterBytes - passed;
          const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
          passed += part.length;
          responseBytes += part.length;
          if (passed < cutAfterBytes) {
            res.write(part);
            return;
          }
          answer.destroy();
          // The connection closes once the partial object is on the wire, without ending the chunked body: the client holds half an object.
          res.write(part, () => res.socket?.destroy());
        });
        answer.on('end', () => res.end());
      },
    );
    out.on('error', () => res.destroy());
    // A client that goes away (a watch it stopped) ends the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };

  const server = createServer({ cert: options.certPem, key: options.keyPem }, forward);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      closedSocketBytes += socket.bytesWritten;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    counts: () => ({
      calls: { ...calls },
      failed: { ...failed },
      openMs: { ...openMs },
      responseBytes,
      wireBytes: closedSocketBytes + [...sockets].reduce((sum, s) => sum + s.bytesWritten, 0),
    }),
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      upstream.destroy();
      await closed;
    },
  };
}
