// A caller without credentials flooding the extender's endpoint, as anyone who
// can reach the ALB could: POST /filter as fast as a bounded rate allows, new
// connections when the target speaks TLS (a refused handshake leaves none to
// reuse), until told to stop. Loopback only. The e2e test runs it in a process
// of its own (`startFloodProcess`, `node --import tsx` with an IPC channel) so
// that its work does not share the event loop of the adapter it attacks; the
// test waits on the adapter's own counters (refused handshakes, throttled
// invocations) to know the flood is under way, never on a clock.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request as httpRequest, Agent as HttpAgent } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { isEntryPoint } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';
import { GPU_RESOURCE } from '../../lambdas/scheduling/keys';
import { typescriptProgramArgs } from '../common/typescript-program';

export interface FloodOptions {
  /** http(s)://127.0.0.1:port of the target. */
  readonly url: string;
  /** Most requests sent per second (paced from the start). */
  readonly ratePerSecond: number;
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

export interface RunningFlood {
  /** Sends no more requests, waits for those in flight and returns what came back. */
  stop(): Promise<FloodResult>;
}

/** The flood's pod, in a namespace of its own, so the target's records tell its calls apart. */
export const FLOOD_POD = { namespace: 'loopback-flood', name: 'flood' } as const;

/** What the flood sends: a filter request for FLOOD_POD. */
const FILTER_BODY = JSON.stringify({
  Pod: {
    metadata: { ...FLOOD_POD, uid: 'flood' },
    spec: { schedulerName: 'gpu-scheduler', containers: [{ name: 'c', resources: { limits: { [GPU_RESOURCE]: '1' } } }] },
  },
  NodeNames: ['node-a', 'node-b'],
});

const USAGE = 'usage: node --import tsx local/extender-host/loopback-flood.ts \'{"url":"http://127.0.0.1:PORT","ratePerSecond":2000,"concurrency":32}\' (runs until stdin closes)';

export function parseFloodOptions(text: string | undefined): FloodOptions {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new Error(USAGE);
  }
  const options = value as Partial<FloodOptions>;
  const url = new URL(String(options.url));
  if (url.hostname !== '127.0.0.1') throw new Error(`the flood targets loopback only (127.0.0.1), got ${url.hostname}`);
  for (const key of ['ratePerSecond', 'concurrency'] as const) {
    const n = options[key];
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new Error(`${key} must be a positive integer, got ${String(n)}`);
  }
  return options as FloodOptions;
}

/** Floods `options.url` from this process until `stop()`. */
export function startFlood(options: FloodOptions): RunningFlood {
  const url = new URL(options.url);
  const tls = url.protocol === 'https:';
  const agent = tls
    ? new HttpsAgent({ keepAlive: false, maxSockets: options.concurrency, rejectUnauthorized: false })
    : new HttpAgent({ keepAlive: true, maxSockets: options.concurrency });
  const statuses: Record<string, number> = {};
  let refused = 0;
  let sent = 0;
  let stopping = false;
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
  const inFlight = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      // stop() ends a pause at once.
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopping) {
      if (inFlight.size >= options.concurrency) {
        await Promise.race(inFlight);
        continue;
      }
      // Paced: request n goes out no earlier than n / rate seconds after the start.
      const wait = started + (sent * 1000) / options.ratePerSecond - Date.now();
      if (wait > 0) {
        await pause(Math.max(1, wait));
        continue;
      }
      sent++;
      const p: Promise<void> = once().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    agent.destroy();
    return { sent, statuses, refused, elapsedMs: Date.now() - started };
  })();
  return {
    stop: () => {
      stopping = true;
      wake?.();
      return loop;
    },
  };
}

/** What the flood process tells its parent once stopped. */
type FloodMessage = { readonly result: FloodResult } | { readonly error: string };

const FLOOD_PROGRAM = fileURLToPath(import.meta.url);

/**
 * Starts the flood in a child process (at the default priority: the test
 * waits on what the target counts, so the flood must get CPU to be a flood).
 * `stop()` tells it to stop and returns its result; the child also ends with
 * this process.
 */
export function startFloodProcess(options: FloodOptions): RunningFlood {
  const child = spawn(process.execPath, typescriptProgramArgs(FLOOD_PROGRAM, [JSON.stringify(options)]), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const killChild = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  const outcome = new Promise<FloodResult>((resolve, reject) => {
    child.on('message', (message: FloodMessage) => {
      if ('result' in message) resolve(message.result);
      else reject(new Error(`the flood client failed: ${message.error}`));
    });
    child.once('error', reject);
    // 'close', not 'exit': by then every message the child sent has been read.
    child.once('close', (code, signal) => {
      process.off('exit', killChild);
      reject(new Error(`the flood client exited (code ${String(code)}, signal ${String(signal)}) before reporting:\n${stderr}`));
    });
  });
  // Unhandled until stop() is called; a failure then is reported there.
  outcome.catch(() => undefined);
  return {
    stop: () => {
      if (child.connected) child.send('stop');
      return outcome;
    },
  };
}

if (isEntryPoint(import.meta.url)) {
  const send = (message: FloodMessage): void => {
    process.send?.(message);
  };
  try {
    const running = startFlood(parseFloodOptions(process.argv[2]));
    const finish = (): void => {
      void running.stop().then((result) => {
        if (process.send) process.send({ result } satisfies FloodMessage, () => process.exit(0));
        else process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
      });
    };
    if (process.send) {
      process.once('message', finish);
      // The parent is gone: nobody is left to report to.
      process.once('disconnect', () => process.exit(0));
    } else {
      // Run by hand: until stdin closes (Ctrl-D) or Ctrl-C.
      process.stdin.resume();
      process.stdin.once('end', finish);
      process.once('SIGINT', finish);
    }
  } catch (error) {
    send({ error: errorMessage(error) });
    console.error(errorMessage(error));
    process.exit(1);
  }
}
