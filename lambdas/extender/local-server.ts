import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { errorMessage } from '../common/error-message';
import { instrumentHandler } from '../observability/instrument-handler';
import type { Extender } from './extender-handler';
import { createExtender } from './extender-handler';
import type { RouterResponse } from './router';
import { MAX_BODY_BYTES } from './router';

/**
 * The extender as a plain HTTP server on 127.0.0.1 — for the local
 * kube-scheduler in tests, and for trying it against kind or minikube:
 *   npm run extender -- --port 8888
 */
export function startLocalServer(extender: Extender, port: number, host = '127.0.0.1'): Promise<Server> {
  const serve = instrumentHandler(extender.telemetry, (exchange: Exchange) => answer(extender, exchange));
  const server = createServer((req, res) => {
    void serve({ req, res });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

async function answer(extender: Extender, { req, res }: Exchange): Promise<void> {
  try {
    const body = await readBody(req);
    const response: RouterResponse =
      body === undefined
        ? { status: 413, body: { Error: `request body is over ${MAX_BODY_BYTES} bytes` } }
        : await extender.route({ method: req.method ?? 'GET', path: req.url ?? '/', body });
    send(res, response.status, response.body, response.headers);
  } catch (error) {
    send(res, 500, { Error: `internal error: ${errorMessage(error)}` });
  }
}

/** The body as text, or undefined once it passes the limit (the rest is drained, not buffered). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooBig = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooBig ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8888' }, host: { type: 'string', default: '127.0.0.1' } } });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got ${values.port}`);
  if (values.host !== '127.0.0.1' && values.host !== 'localhost' && values.host !== '::1') {
    throw new Error('--host must be a loopback address (127.0.0.1, localhost, ::1)');
  }
  const extender = createExtender({ env: process.env });
  // Wired now rather than on the first request, so the log says whether the
  // extender has cluster access; a bad configuration is still answered per request.
  const deps = await extender.deps().catch(() => undefined);
  const server = await startLocalServer(extender, port, values.host);
  const address = server.address() as AddressInfo;
  extender.telemetry.logger.info('extender listening', {
    url: `http://${address.address}:${address.port}`,
    clusterAccess: deps?.cache !== undefined,
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(errorMessage(error));
    process.exit(1);
  });
}
