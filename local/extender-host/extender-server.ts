import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineCli, isEntryPoint, readCommandLine, UsageError } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';
import { kubeconfigOverrides } from '../control-plane/kubeconfig-connection';
import { SERVICE } from '../../lambdas/observability/metric-catalog';
import { instrumentHandler } from '../../lambdas/observability/instrument-handler';
import { localLambdaContext } from '../aws/lambda-context';
import { createTelemetry } from '../../lambdas/observability/telemetry';
import type { Extender } from '../../lambdas/extender/extender-handler';
import { createExtender } from '../../lambdas/extender/extender-handler';
import type { RouterResponse } from '../../lambdas/extender/router';
import { MAX_BODY_BYTES } from '../../lambdas/extender/router';
import { localServerObserver } from './extender-terminal-observer';

/**
 * The extender as a plain HTTP server on 127.0.0.1 — for the local
 * kube-scheduler in tests, and for trying it against kind or minikube:
 *   npm run extender -- --port 8888
 */
export function startLocalServer(extender: Extender, port: number, host = '127.0.0.1'): Promise<Server> {
  // Each request is one invocation, as behind the ALB: its log lines carry a
  // request id of their own and its metrics are published when it ends.
  const serve = instrumentHandler(extender.telemetry, async (exchange: Exchange) => answer(extender, exchange));
  const server = createServer((req, res) => {
    void serve({ req, res }, localLambdaContext({ functionName: LOCAL_FUNCTION_NAME, timeoutMs: LOCAL_TIMEOUT_MS }));
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

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];
/** What the local server's log lines name as the function, and the deadline its context counts down to (the extender's default timeout, cdk/app-config/app-config-defaults.ts). */
const LOCAL_FUNCTION_NAME = 'gpu-extender-local';
const LOCAL_TIMEOUT_MS = 10_000;

export const LOCAL_SERVER_CLI = defineCli({
  usage: 'npm run extender -- [options]',
  summary: [
    'The extender as a plain HTTP server on a loopback address (POST /filter, /prioritize,',
    '/preempt, GET /healthz), for a local kube-scheduler, kind or minikube. Without',
    'KUBECONFIG (or CLUSTER_NAME) it has no cluster access and answers only full-Nodes',
    'requests; with it, also nodeCacheCapable (NodeNames) ones. The EXTENDER_* variables',
    'of docs/extender.md apply. On a terminal it prints one line per request; otherwise',
    '(a file, a pipe) the JSON log lines and EMF metrics the Lambda writes.',
  ].join('\n'),
  options: {
    port: { type: 'string', value: 'port', default: '8888', description: 'TCP port to listen on (0 picks a free one)' },
    host: { type: 'string', value: 'address', default: '127.0.0.1', description: `loopback address to bind: ${LOOPBACK.join(', ')}` },
  },
  examples: [
    'npm run extender -- --port 8888                            # full-Nodes mode only',
    'KUBECONFIG=~/.kube/config npm run extender -- --port 8888  # both modes (kind, minikube)',
    'curl -s localhost:8888/healthz',
  ],
});

function listenOptions(values: { port: string; host: string }): { port: number; host: string } {
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be an integer 0..65535, got ${values.port}`);
  if (!LOOPBACK.includes(values.host)) throw new UsageError(`--host must be a loopback address (${LOOPBACK.join(', ')}), got ${values.host}`);
  return { port, host: values.host };
}

async function main(): Promise<void> {
  const { port, host } = readCommandLine(LOCAL_SERVER_CLI, process.argv.slice(2), listenOptions);
  const onTerminal = process.stdout.isTTY === true;
  const telemetry = createTelemetry(SERVICE.extender);
  const print = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  // KUBECONFIG is this tool's, read in local/: the deployed extender knows only CLUSTER_NAME.
  const kubeconfig = process.env.KUBECONFIG;
  const extender = createExtender({
    env: process.env,
    telemetry,
    observer: localServerObserver(onTerminal, telemetry, print),
    ...(kubeconfig === undefined || kubeconfig === '' ? {} : kubeconfigOverrides(kubeconfig)),
  });
  // Wired now rather than on the first request, so the log says whether the
  // extender has cluster access; a bad configuration is still answered per request.
  const deps = await extender.deps().catch(() => undefined);
  const server = await startLocalServer(extender, port, host);
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const clusterAccess = deps?.cache !== undefined;
  if (onTerminal) {
    print(`extender listening on ${url}; ${clusterAccess ? 'cluster access: full Nodes and NodeNames requests' : 'no cluster access (KUBECONFIG unset): full Nodes requests only'}; Ctrl-C stops it`);
  } else {
    telemetry.logger.info('extender listening', { url, clusterAccess });
  }
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(errorMessage(error));
    process.exit(1);
  });
}
