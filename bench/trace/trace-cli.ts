/**
 * `npm run bench:trace` — placement quality on the openb GPU trace: replays
 * the FGD paper's method for each policy and seed, prints a table (or JSON
 * with --json) and writes an SVG plot of allocation vs arrived workload.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import type { PublishedRow } from './published-results';
import { parsePublishedCsv, workloadKey } from './published-results';
import type { SeedResult } from './trace-job';
import { MAX_PERCENT } from './trace-job';
import type { PolicyName } from './trace-policies';
import { DEFAULT_POLICIES, isPolicyName, POLICIES } from './trace-policies';
import type { PolicyResult } from './trace-report';
import { formatTable, renderSvg, toJson } from './trace-report';
import type { TieBreak } from './trace-simulation';
import type { WorkerJob } from './trace-worker';
import { errorMessage, errorStack } from '../../lambdas/common/error-message';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const FIRST_SEED = 42; // the paper's seeds are 42..51

const USAGE = `usage: npm run bench:trace -- [--data-dir DIR] [--nodes CSV] [--pods CSV|default|gpuspec33]
       [--seeds N] [--policy ${POLICIES.join(',')}] [--json] [--plot FILE] [--workers N] [--tie-break order|random]`;

class UsageError extends Error {}

interface Options {
  readonly nodesPath: string;
  readonly podsPath: string;
  readonly publishedPath: string;
  readonly seeds: number;
  readonly policies: readonly PolicyName[];
  readonly json: boolean;
  readonly plotPath: string;
  readonly workers: number;
  readonly tieBreak: TieBreak;
}

function positiveInt(text: string | undefined, flag: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`${flag} must be a positive integer, got "${text}"`);
  return Number(text);
}

function resolveTraceFile(text: string | undefined, dataDir: string, fallback: string, prefix: string): string {
  if (text === undefined) return path.join(dataDir, fallback);
  for (const candidate of [path.resolve(text), path.join(dataDir, text), path.join(dataDir, `${prefix}${text}.csv`)]) {
    if (existsSync(candidate)) return candidate;
  }
  return path.resolve(text);
}

function parseOptions(argv: readonly string[]): Options {
  try {
    return readOptions(argv);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // node:util parseArgs reports unknown or malformed flags as TypeError.
    throw new UsageError(errorMessage(error));
  }
}

function readOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      'data-dir': { type: 'string' },
      nodes: { type: 'string' },
      pods: { type: 'string' },
      seeds: { type: 'string' },
      policy: { type: 'string' },
      json: { type: 'boolean', default: false },
      plot: { type: 'string' },
      workers: { type: 'string' },
      'tie-break': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) throw new UsageError('');
  // Flags first: a wrong flag is reported as such even where the trace is missing.
  const policies = (values.policy ?? DEFAULT_POLICIES.join(',')).split(',').map((p) => p.trim()).filter((p) => p !== '');
  const unknown = policies.filter((p) => !isPolicyName(p));
  if (unknown.length > 0 || policies.length === 0) throw new UsageError(`unknown policy ${unknown.join(', ')}; choose from ${POLICIES.join(', ')}`);
  const tieBreak = values['tie-break'] ?? 'order';
  if (tieBreak !== 'order' && tieBreak !== 'random') throw new UsageError(`--tie-break must be order or random, got "${tieBreak}"`);
  const seeds = positiveInt(values.seeds, '--seeds', 10);
  const workers = positiveInt(values.workers, '--workers', availableParallelism());

  const dataDir = path.resolve(values['data-dir'] ?? path.resolve(repoRoot, '../shared/data/openb'));
  const nodesPath = resolveTraceFile(values.nodes, dataDir, 'openb_node_list_gpu_node.csv', 'openb_node_list_');
  const podsPath = resolveTraceFile(values.pods, dataDir, 'openb_pod_list_default.csv', 'openb_pod_list_');
  for (const [what, file] of [['node list', nodesPath], ['pod list', podsPath]] as const) {
    if (!existsSync(file)) {
      throw new UsageError(
        `trace ${what} not found: ${file}\n` +
          '(the openb trace is the cluster-trace-gpu-v2023/csv/ folder of the public alibaba/clusterdata repository; ' +
          'put its CSV files in a folder and pass --data-dir DIR, or --nodes / --pods)',
      );
    }
  }
  return {
    nodesPath,
    podsPath,
    publishedPath: path.join(path.dirname(podsPath), 'published_alloc_summary.csv'),
    seeds,
    policies: policies as PolicyName[],
    json: values.json ?? false,
    plotPath: path.resolve(values.plot ?? path.join(repoRoot, '.bench-out', 'trace', `${workloadKey(podsPath)}.svg`)),
    workers,
    tieBreak,
  };
}

/** Bundles the worker so the hot loop runs plain ESM (no loader hooks or export getters). */
async function bundleWorker(): Promise<string> {
  const outfile = path.join(tmpdir(), `trace-worker-${process.pid}.mjs`);
  await build({ entryPoints: [path.join(here, 'trace-worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'error' });
  return outfile;
}

async function runJobs(options: Options, workerFile: string, jobs: readonly WorkerJob[], onResult: (r: SeedResult) => void): Promise<void> {
  const queue = [...jobs];
  const count = Math.min(options.workers, queue.length);
  const workers = Array.from({ length: count }, () => new Worker(workerFile, { workerData: { nodesPath: options.nodesPath, podsPath: options.podsPath, tieBreak: options.tieBreak } }));
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = (): void => {
              const job = queue.shift();
              if (job === undefined) resolve();
              else worker.postMessage(job);
            };
            worker.on('message', (message: { ok: true; result: SeedResult } | { ok: false; error: string }) => {
              if (!message.ok) return reject(new Error(message.error));
              onResult(message.result);
              next();
            });
            worker.on('error', reject);
            next();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function aggregate(policy: PolicyName, results: readonly SeedResult[]): PolicyResult {
  const sums = new Float64Array(MAX_PERCENT + 1);
  const counts = new Uint16Array(MAX_PERCENT + 1);
  for (const r of results) {
    for (const [percent, value] of r.checkpoints) {
      sums[percent] = (sums[percent] ?? 0) + value;
      counts[percent] = (counts[percent] ?? 0) + 1;
    }
  }
  return {
    policy,
    seeds: results.length,
    curve: Array.from(sums, (s, i) => ((counts[i] ?? 0) === 0 ? Number.NaN : s / (counts[i] ?? 1))),
    secondsPerSeed: results.reduce((sum, r) => sum + r.seconds, 0) / Math.max(1, results.length),
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const started = performance.now();
  const workerFile = await bundleWorker();
  const jobs: WorkerJob[] = [];
  for (const policy of options.policies) for (let s = 0; s < options.seeds; s++) jobs.push({ policy, seed: FIRST_SEED + s });
  const byPolicy = new Map<PolicyName, SeedResult[]>(options.policies.map((p) => [p, []]));
  try {
    await runJobs(options, workerFile, jobs, (r) => {
      byPolicy.get(r.policy)?.push(r);
      const a130 = r.checkpoints.find(([p]) => p === MAX_PERCENT)?.[1];
      process.stderr.write(`  ${r.policy} seed ${r.seed}: alloc@130% ${a130?.toFixed(2) ?? '-'} (${r.seconds.toFixed(1)} s)\n`);
    });
  } finally {
    rmSync(workerFile, { force: true });
  }
  const results = options.policies.map((p) => aggregate(p, (byPolicy.get(p) ?? []).sort((a, b) => a.seed - b.seed)));
  const wall = (performance.now() - started) / 1000;
  const workload = workloadKey(options.podsPath);
  const published: PublishedRow[] = existsSync(options.publishedPath) ? parsePublishedCsv(readFileSync(options.publishedPath, 'utf8')) : [];

  mkdirSync(path.dirname(options.plotPath), { recursive: true });
  writeFileSync(options.plotPath, renderSvg(results, `GPU allocation vs arrived workload — ${workload}, ${options.seeds} seeds`, MAX_PERCENT));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(toJson(results), null, 2)}\n`);
    process.stderr.write(`plot: ${options.plotPath}\nwall time: ${wall.toFixed(1)} s\n`);
    return;
  }
  process.stdout.write(`workload ${workload}: ${options.seeds} seeds (${FIRST_SEED}..${FIRST_SEED + options.seeds - 1}), tie-break ${options.tieBreak}, ${options.workers} workers\n\n`);
  process.stdout.write(`${formatTable(results, published, workload)}\n\n`);
  process.stdout.write(`plot: ${options.plotPath}\nwall time: ${wall.toFixed(1)} s\n`);
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message ? `error: ${error.message}\n` : ''}${USAGE}\n`);
    process.exit(error.message ? 2 : 0); // --help is not an error
  }
  process.stderr.write(`${errorStack(error)}\n`);
  process.exit(1);
});
