// The ALB's HTTPS listener with mutual TLS in verify mode, run as a process of
// its own (alb-tls-front.ts starts it with `node --import tsx`). On AWS the
// ALB's own fleet terminates TLS and verifies client certificates, never the
// Lambda: so here a child process does it, and a flood of refused handshakes
// costs the process that stands in for the ALB, not the event loop that runs
// the handler. That is also why refusals are counted here and reported in
// batches (at most one message every REFUSAL_REPORT_MS), never one message per
// handshake. A verified request is passed to the adapter's plain listener on
// loopback with the headers the ALB adds (`x-amzn-mtls-clientcert-*`); a failed
// handshake reaches nothing.
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { basename, resolve } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';

/** What the front is started with, as JSON in the TLS_FRONT_CONFIG_ENV variable. */
export interface TlsFrontConfig {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  readonly clientCaBundle: string;
  /** The adapter's plain listener on 127.0.0.1. */
  readonly upstreamPort: number;
  /** Port to listen on (0: a free one). */
  readonly port: number;
}

/** What the parent may tell the front besides `stop`: a new listener certificate or trust store bundle (for new handshakes, as the ALB picks up ACM's re-import or ModifyTrustStore). */
export interface TlsFrontUpdate {
  readonly update: Partial<Pick<TlsFrontConfig, 'certificatePem' | 'privateKeyPem' | 'clientCaBundle'>>;
}

/** What the front tells its parent: where it listens, refusals since the last report, a failure, or that it stopped. */
export type TlsFrontMessage = { readonly listening: number } | { readonly refused: number } | { readonly error: string } | { readonly stopped: true } | { readonly updated: true };

export const TLS_FRONT_CONFIG_ENV = 'ALB_TLS_FRONT';
/** How often refused handshakes are reported: a flood costs at most one message per interval. */
export const REFUSAL_REPORT_MS = 100;
/** An ALB closes a client connection idle this long (its default connection idle timeout). */
export const ALB_IDLE_TIMEOUT_MS = 60_000;
/**
 * The front closes an idle connection to the plain listener after this long,
 * well before that listener would (UPSTREAM_KEEP_ALIVE_MS): otherwise a
 * request sent on a pooled socket as the listener closes it is reset, and the
 * caller sees "socket hang up" where an ALB would have answered.
 */
export const UPSTREAM_IDLE_MS = 30_000;
export const UPSTREAM_KEEP_ALIVE_MS = 65_000;

/** The headers the ALB adds to a request that passed mutual TLS in verify mode. */
function albHeaders(socket: TLSSocket, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const peer = socket.getPeerCertificate();
  return {
    ...headers,
    'x-forwarded-proto': 'https',
    'x-forwarded-port': String(socket.localPort),
    'x-amzn-mtls-clientcert-serial-number': peer.serialNumber,
    'x-amzn-mtls-clientcert-subject': `CN=${String(peer.subject.CN)}`,
    'x-amzn-mtls-clientcert-issuer': `CN=${String(peer.issuer.CN)}`,
    'x-amzn-mtls-clientcert-validity': `NotBefore=${new Date(peer.valid_from).toISOString()};NotAfter=${new Date(peer.valid_to).toISOString()}`,
  };
}

/** Serves the listener; `send` carries the messages to the parent. */
export function serveTlsFront(config: TlsFrontConfig, send: (message: TlsFrontMessage) => void): { stop(): Promise<void>; update(change: TlsFrontUpdate['update']): void } {
  let current = { cert: config.certificatePem, key: config.privateKeyPem, ca: config.clientCaBundle };
  const agent = new Agent({ keepAlive: true, timeout: UPSTREAM_IDLE_MS });
  const server = createServer(
    { cert: config.certificatePem, key: config.privateKeyPem, ca: config.clientCaBundle, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    (req, res) => {
      const upstream = request(
        { host: '127.0.0.1', port: config.upstreamPort, method: req.method, path: req.url, headers: albHeaders(req.socket as TLSSocket, req.headers), agent },
        (answer) => {
          // Hop-by-hop: the front's own connection to the caller has its own keep-alive (ALB_IDLE_TIMEOUT_MS).
          const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    },
  );
  server.keepAliveTimeout = ALB_IDLE_TIMEOUT_MS;
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  let refused = 0;
  let reported = 0;
  const report = (): void => {
    if (refused === reported) return;
    send({ refused: refused - reported });
    reported = refused;
  };
  const reporter = setInterval(report, REFUSAL_REPORT_MS);
  server.on('tlsClientError', (_error, socket) => {
    refused += 1;
    socket.destroy();
  });
  server.once('error', (error) => send({ error: error.message }));
  server.listen(config.port, '127.0.0.1', () => send({ listening: (server.address() as AddressInfo).port }));

  return {
    update: (change) => {
      current = {
        cert: change.certificatePem ?? current.cert,
        key: change.privateKeyPem ?? current.key,
        ca: change.clientCaBundle ?? current.ca,
      };
      // New handshakes only; connections already open keep what they agreed.
      server.setSecureContext(current);
      send({ updated: true });
    },
    stop: () =>
      new Promise<void>((done) => {
        clearInterval(reporter);
        report();
        for (const socket of sockets) socket.destroy();
        agent.destroy();
        server.close(() => done());
      }),
  };
}

// Bundled into another program (the benchmark's extender container imports the
// adapter, which imports this file's constants), import.meta.url is that
// program's own file: the name check keeps the bundle from starting a front.
const thisFile = fileURLToPath(import.meta.url);
const runAsFront = process.argv[1] !== undefined && resolve(process.argv[1]) === thisFile && basename(thisFile).startsWith('alb-tls-front-process.');
if (runAsFront) {
  const config = JSON.parse(process.env[TLS_FRONT_CONFIG_ENV] ?? 'null') as TlsFrontConfig | null;
  const send = (message: TlsFrontMessage): void => {
    process.send?.(message);
  };
  if (!config) throw new Error(`the TLS front needs its configuration in ${TLS_FRONT_CONFIG_ENV}`);
  const front = serveTlsFront(config, send);
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && 'update' in message) {
      front.update((message as TlsFrontUpdate).update);
      return;
    }
    void front.stop().then(() => {
      send({ stopped: true });
      process.exit(0);
    });
  });
  // The adapter's process is gone: nothing is left to serve.
  process.on('disconnect', () => process.exit(0));
}
