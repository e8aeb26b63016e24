// A caller without credentials flooding the extender's endpoint, as anyone who
// can reach the ALB could: POST /filter as fast as a bounded rate allows, new
// connections when the target speaks TLS (a refused handshake leaves none to
// reuse). Loopback only. Runs in a process of its own (the e2e test spawns
// it with tsx) so that its work does not share the event loop of the adapter
// it attacks; prints one JSON line with what it got back.
import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { isEntryPoint } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';

export interface FloodOptions {
  /** http(s)://127.0.0.1:port of the target. */
  readonly url: string;
  readonly requests: number;
  readonly seconds: number;
  /** Most requests in flight at once. */
  readonly concurrency: number;
}

export interface FloodResult {
  readonly sent: number;
  /** Answers by HTTP status, e.g. { "200": 17000, "503": 3000 }. */
  readonly statuses: Record<string, number>;
  /** Requests that got no HTTP answer (handshake refused, connection reset). */
  readonly refused: number;
  readonly elapsedMs: number;
}

/** What the flood sends: a filter request for a pod of its own namespace, so the target's records tell its calls apart. */
const FILTER_BODY = JSON.stringify({
  Pod: {
    metadata: { name: 'flood', namespace: 'loopback-flood', uid: 'flood' },
    spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { limits: { [GPU_RESOURCE]: '1' } } }] },
  },
  NodeNames: ['node-a', 'node-b'],
});

export function parseFloodOptions(text: string | undefined): FloodOptions {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new Error('usage: tsx local/extender-host/loopback-flood.ts \'{"url":"http://127.0.0.1:PORT","requests":20000,"seconds":10,"concurrency":64}\'');
  }
  const options = value as Partial<FloodOptions>;
  const url = new URL(String(options.url));
  if (url.hostname !== '127.0.0.1') throw new Error(`the flood targets loopback only (127.0.0.1), got ${url.hostname}`);
  for (const key of ['requests', 'seconds', 'concurrency'] as const) {
    const n = options[key];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer, got ${String(n)}`);
  }
  return options as FloodOptions;
}

export async function flood(options: FloodOptions): Promise<FloodResult> {
  const url = new URL(options.url);
  const tls = url.protocol === 'https:';
  const agent = tls
    ? new HttpsAgent({ keepAlive: false, maxSockets: options.concurrency, rejectUnauthorized: false })
    : new HttpAgent({ keepAlive: true, maxSockets: options.concurrency });
  const statuses: Record<string, number> = {};
  let refused = 0;
  let sent = 0;
  let inFlight = 0;
  const started = Date.now();
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const send = tls ? httpsRequest : httpRequest;
      const req = send(url, { method: 'POST', path: '/filter', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
        res.resume();
        res.on('end', resolve);
        res.on('error', resolve);
      });
      req.on('error', () => {
        refused++;
        resolve();
      });
      req.end(FILTER_BODY);
    });
  const pending = new Set<Promise<void>>();
  while (sent < options.requests) {
    // Paced: request n goes out no earlier than n / rate seconds after the start.
    const due = started + (sent * options.seconds * 1000) / options.requests;
    const wait = due - Date.now();
    if (wait > 0 || inFlight >= options.concurrency) {
      await (inFlight >= options.concurrency ? Promise.race(pending) : new Promise((resolve) => setTimeout(resolve, Math.max(1, wait))));
      continue;
    }
    sent++;
    inFlight++;
    const p: Promise<void> = once().finally(() => {
      inFlight--;
      pending.delete(p);
    });
    pending.add(p);
  }
  await Promise.all(pending);
  agent.destroy();
  return { sent, statuses, refused, elapsedMs: Date.now() - started };
}

const TSX = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

/**
 * Runs `flood` in a child process (tsx) at nice `nice` and returns its result.
 * A real attacker runs on a machine of its own; on a small test machine the
 * lowest priority keeps its CPU from being counted as the target's slowness.
 */
export function floodFromChildProcess(options: FloodOptions, nice = 19): Promise<FloodResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(TSX, [fileURLToPath(import.meta.url), JSON.stringify(options)], { timeout: (options.seconds + 120) * 1000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`the flood client failed: ${errorMessage(error)}\n${stderr}`));
      else resolve(JSON.parse(stdout) as FloodResult);
    });
    child.once('spawn', () => {
      if (child.pid !== undefined) setPriority(child.pid, nice);
    });
  });
}

if (isEntryPoint(import.meta.url)) {
  Promise.resolve()
    .then(() => flood(parseFloodOptions(process.argv[2])))
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exit(1);
    });
}
