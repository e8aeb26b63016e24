// Starts an extender "container" for the scale benchmark: the extender bundled
// as CDK bundles it (bundles.ts) in a fresh `node` behind the local ALB
// adapter (scale-container-main.ts), and calls it over HTTP as kube-scheduler
// calls the ALB.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { fileURLToPath } from 'node:url';
import { functionNodeOptions } from '../../cdk/lib/functions/node-options';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';
import { CDK_BUNDLING } from './bundles';
import { lambdaRuntimeNodeArgs } from './lambda-runtime-args';

export interface ContainerStats {
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  /** Peak resident set of the process so far (getrusage maxRSS). */
  readonly peakRssMiB: number;
}

export type ContainerMessage =
  | { readonly type: 'ready'; readonly url: string; readonly initMs: number; readonly stats: ContainerStats }
  | { readonly type: 'stats'; readonly stats: ContainerStats }
  | { readonly type: 'failed'; readonly error: string };

export interface ExtenderContainer {
  /** Milliseconds the bundle's import took (module init: the Lambda's INIT phase). */
  readonly initMs: number;
  /** From fork to the adapter listening. */
  readonly startMs: number;
  readonly readyStats: ContainerStats;
  /** The end of what the container wrote to stderr (the handler's error logs). */
  stderrTail(): string;
  post(path: string, body: string): Promise<{ status: number; body: string; ms: number }>;
  stats(): Promise<ContainerStats>;
  stop(): Promise<void>;
}

export interface ContainerBundles {
  readonly extender: string;
  readonly container: string;
}

const MAIN = fileURLToPath(new URL('./scale-container-main.ts', import.meta.url));

/**
 * lambdas/ of `commit` in a scratch directory beside `outDir`, with this
 * tree's node_modules: other work in progress in the working tree stays out
 * of the measurement. lambdas/ imports nothing outside itself.
 */
function checkout(commit: string, outDir: string): string {
  const root = join(outDir, `source-${commit}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const tar = execFileSync('git', ['archive', '--format=tar', commit, 'lambdas', 'package.json', 'tsconfig.json'], { cwd: PROJECT_ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/**
 * The extender's Lambda bundle (of the working tree, or of `commit`) and the
 * container entry, both plain .mjs for `node`. Any commit is built as this
 * tree's CDK builds the extender, one file: one that had a build of its own
 * (two bundles, or chunks) is measured as one bundle too, its import() of
 * cluster access inlined by esbuild.
 */
export async function bundleContainer(outDir: string, commit?: string): Promise<ContainerBundles> {
  const extender = join(outDir, 'extender', 'index.mjs');
  const container = join(outDir, 'container', 'index.mjs');
  const root = commit === undefined ? PROJECT_ROOT : checkout(commit, outDir);
  const entry = join(root, relative(PROJECT_ROOT, LAMBDA_ENTRIES.extender));
  rmSync(dirname(extender), { recursive: true, force: true });
  await build({ ...CDK_BUNDLING, entryPoints: [entry], outfile: extender, absWorkingDir: root, logLevel: 'error' }).catch((error: unknown) => {
    throw new Error(`bundling the extender of ${commit ?? 'the working tree'} (${entry}) failed: ${error instanceof Error ? error.message : String(error)}`);
  });
  await build({ ...CDK_BUNDLING, entryPoints: [MAIN], outfile: container, absWorkingDir: PROJECT_ROOT, logLevel: 'error' });
  return { extender, container };
}

function nextMessage(child: ChildProcess, type: ContainerMessage['type'], timeoutMs: number): Promise<ContainerMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`the extender container sent no ${type} within ${timeoutMs / 1000} s`)), timeoutMs);
    const onMessage = (message: ContainerMessage): void => {
      if (message.type === 'failed') done(new Error(`the extender container failed: ${message.error}`));
      else if (message.type === type) done(undefined, message);
    };
    const onExit = (code: number | null): void => done(new Error(`the extender container exited (${code}) before ${type}`));
    function done(error: Error | undefined, message?: ContainerMessage): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message as ContainerMessage);
    }
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

function post(url: string, path: string, body: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const MEMORY_SIZE_MIB = APP_CONFIG_DEFAULTS.extender.memorySizeMiB;
/** What the stack sets on the extender at its default memory (cdk/lib/functions/node-options.ts). */
const DEPLOYED_NODE_OPTIONS = functionNodeOptions('extender', MEMORY_SIZE_MIB);

/**
 * Forks the container with `env` (the Lambda's environment, nothing else of
 * this process, and KUBECONFIG: the cluster the container injects,
 * scale-container-main.ts). `onSpawn` gets its pid at once, before the
 * bundle is imported (e.g. to put it under a CPU quota).
 */
export async function startExtenderContainer(bundles: ContainerBundles, env: Record<string, string>, onSpawn?: (pid: number) => void): Promise<ExtenderContainer> {
  const started = performance.now();
  const child = fork(bundles.container, [bundles.extender], {
    // As Lambda's runtime starts node: its heap flags win over NODE_OPTIONS.
    execArgv: lambdaRuntimeNodeArgs(MEMORY_SIZE_MIB),
    // The handler's log and EMF lines would flood the terminal; the last error lines are kept for failures.
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', AWS_LAMBDA_FUNCTION_NAME: 'gpu-extender', POWERTOOLS_DEV: '', AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(MEMORY_SIZE_MIB), NODE_OPTIONS: DEPLOYED_NODE_OPTIONS, ...env },
  });
  try {
    if (child.pid !== undefined) onSpawn?.(child.pid);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
  });
  try {
    const ready = await nextMessage(child, 'ready', 60_000);
    if (ready.type !== 'ready') throw new Error('unexpected message');
    return {
      initMs: ready.initMs,
      startMs: performance.now() - started,
      readyStats: ready.stats,
      stderrTail: () => stderrTail,
      post: (path, body) => post(ready.url, path, body),
      async stats() {
        const answer = nextMessage(child, 'stats', 30_000);
        child.send({ type: 'stats' });
        const message = await answer;
        if (message.type !== 'stats') throw new Error('unexpected message');
        return message.stats;
      },
      async stop() {
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.send({ type: 'stop' });
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    // What the container said on its way out (a missing setting, a failed import) is the useful part.
    throw stderrTail === '' ? error : new Error(`${error instanceof Error ? error.message : String(error)}; its stderr ends:\n${stderrTail}`);
  }
}
