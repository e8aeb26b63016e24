/**
 * `npm run bench:trace` — placement quality on the openb GPU trace: replays
 * the FGD paper's method for each policy and seed, prints a table (or JSON
 * with --json) and writes an SVG plot of allocation vs arrived workload.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build } from 'esbuild';
import type { PublishedRow } from './published-results';
import { PAPER_POLICY, parsePublishedCsv, workloadKey } from './published-results';
import type { SeedResult } from './trace-job';
import { MAX_PERCENT } from './trace-job';
import type { PolicyName } from './trace-policies';
import { ABLATION_NAMES, ABLATIONS, DEFAULT_POLICIES, isPolicyName, POLICIES } from './trace-policies';
import type { PolicyResult } from './trace-report';
import { formatAblationTable, formatSummaryMarkdown, formatTable, sampleSd, toJson, toTraceResults } from './trace-report';
import { renderTraceChart } from '../../charts/trace-chart';
import type { TieBreak } from './trace-simulation';
import type { WorkerJob } from './trace-worker';
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliValues } from '../../cli/command-line';
import { errorMessage, errorStack } from '../../lambdas/common/error-message';
import { createRng } from './seeded-rng';
import type { TracePod } from './trace-csv';
import { parsePodCsv } from './trace-csv';
import { generateVariant, parseVariantName, toPodCsv, variantSource } from './trace-variants';
import type { VariantSpec } from './trace-variants';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const FIRST_SEED = 42; // the paper's seeds are 42..51
/** Where the trace is looked for without --data-dir: a git-ignored folder of this repository (the trace is never committed). */
const DEFAULT_DATA_DIR = '.bench-data/openb';

export const TRACE_CLI = defineCli({
  usage: 'npm run bench:trace -- [options]',
  summary: [
    'Placement quality on the Alibaba openb GPU trace with the FGD paper\'s method: replays',
    'the trace for each policy and seed and reports the GPU allocation ratio at 100 % and',
    '130 % arrived workload (mean over seeds), beside the paper\'s published values. Prints',
    'a table (or JSON with --json) and the path of an SVG plot, whose figures go to a JSON file',
    'beside it (--record: also to docs/data/, where npm run charts reads them); per-seed progress',
    'goes to stderr.',
    'The trace is the cluster-trace-gpu-v2023/csv/ folder of the public alibaba/clusterdata',
    'repository; it is read at run time, never copied into this one.',
  ].join('\n'),
  options: {
    'data-dir': { type: 'string', value: 'dir', description: `where the trace CSVs are (default ${DEFAULT_DATA_DIR} in the repository, git-ignored)` },
    nodes: { type: 'string', value: 'csv', description: 'node list: a path or a file in the data dir (default openb_node_list_gpu_node.csv)' },
    pods: {
      type: 'string',
      value: 'a,b',
      description:
        'pod lists, comma-separated, each a path, a file in the data dir, or a short name: default, gpuspec33, multigpu50, … (default default); ' +
        'gen-cpuNNN, gen-gpushareNN, gen-multigpuNN, gen-gpuspecNN (optionally -sSEED) generate a lookalike of that public list; several run one after the other',
    },
    seeds: { type: 'string', value: 'n', description: `seeds ${FIRST_SEED}..${FIRST_SEED}+n-1, the paper's seeds (default 10)` },
    policy: { type: 'string', value: 'a,b', description: `policies, from ${POLICIES.join(', ')} (default ${DEFAULT_POLICIES.join(',')})` },
    json: { type: 'boolean', description: 'print {policy: {alloc100, alloc130}} (percent) and nothing else on stdout' },
    markdown: { type: 'boolean', description: 'print the README\'s table (allocation at 130 % per workload, beside the paper\'s) and nothing else on stdout' },
    plot: { type: 'string', value: 'file', description: 'the SVG plot of allocation vs arrived workload (default .bench-out/trace/<workload>.svg); its figures go beside it as <name>.json' },
    record: { type: 'boolean', description: 'also write each workload\'s figures to docs/data/trace-<workload>.json, the docs\' charts\' data (npm run charts)' },
    workers: { type: 'string', value: 'n', description: 'worker threads running seeds (default: the number of CPUs)' },
    ablation: { type: 'boolean', description: 'add extender and each of its ablations (one design choice of the default profile undone) to the policies, with a table of what each choice is worth' },
    'tie-break': { type: 'string', value: 'order|random', description: 'among equal scores: the first node (order, default) or a fresh uniform pick (random)' },
  },
  examples: [
    'git clone --depth 1 https://github.com/alibaba/clusterdata && npm run bench:trace -- --data-dir clusterdata/cluster-trace-gpu-v2023/csv',
    'npm run bench:trace -- --pods gpuspec33                 # the GPU-model-constrained trace',
    'npm run bench:trace -- --seeds 3 --policy bestfit,default --json',
    'npm run bench:trace -- --pods default,gpuspec33 --policy fgd,default   # several workloads in one run',
    'npm run bench:trace -- --pods default,gpuspec33 --ablation             # what each design choice of the default profile is worth',
    'npm run bench:trace -- --pods gen-multigpu50,gen-gpushare80,gen-cpu250 --policy fgd,extender   # lookalikes of public lists, generated from the shared ones',
    'npm run bench:trace -- --pods gen-multigpu35-s7 --policy fgd,extender   # the same recipe, another share and generator seed',
  ],
});

/** One pod list to replay, with where its results go. */
interface Workload {
  readonly podsPath: string;
  readonly publishedPath: string;
  readonly plotPath: string;
  /** The plot's figures (the chart's data), beside it. */
  readonly resultsPath: string;
}

interface Options {
  readonly nodesPath: string;
  readonly workloads: readonly Workload[];
  readonly seeds: number;
  readonly policies: readonly PolicyName[];
  readonly json: boolean;
  readonly markdown: boolean;
  readonly workers: number;
  readonly tieBreak: TieBreak;
  readonly record: boolean;
  /** The command line, as recorded with the figures. */
  readonly command: string;
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

function parseVariantSpec(name: string): VariantSpec | undefined {
  try {
    return parseVariantName(name);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** Writes the variant of the source pods under .bench-out/trace/generated and returns its path: the same file on every run. */
function writeVariant(spec: VariantSpec, source: readonly TracePod[]): string {
  const file = path.join(repoRoot, '.bench-out', 'trace', 'generated', `${spec.name}.csv`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, toPodCsv(generateVariant(source, spec, createRng(spec.seed))));
  return file;
}

export function readOptions(values: CliValues<typeof TRACE_CLI.options>): Options {
  // Flags first: a wrong flag is reported as such even where the trace is missing.
  const named = (values.policy ?? (values.ablation ? '' : DEFAULT_POLICIES.join(','))).split(',').map((p) => p.trim()).filter((p) => p !== '');
  const policies = values.ablation ? [...new Set([...named, 'extender', ...ABLATION_NAMES])] : named;
  const unknown = policies.filter((p) => !isPolicyName(p));
  if (unknown.length > 0 || policies.length === 0) throw new UsageError(`unknown policy ${unknown.join(', ')}; choose from ${POLICIES.join(', ')}`);
  const tieBreak = values['tie-break'] ?? 'order';
  if (tieBreak !== 'order' && tieBreak !== 'random') throw new UsageError(`--tie-break must be order or random, got "${tieBreak}"`);
  const seeds = positiveInt(values.seeds, '--seeds', 10);
  const workers = positiveInt(values.workers, '--workers', availableParallelism());

  const dataDir = path.resolve(values['data-dir'] ?? path.resolve(repoRoot, DEFAULT_DATA_DIR));
  const nodesPath = resolveTraceFile(values.nodes, dataDir, 'openb_node_list_gpu_node.csv', 'openb_node_list_');
  // A gen- name is generated from a list in the data dir (its `path`: gen-gpuspec from gpuspec33, the others
  // from default); any other name is a pod list.
  const podLists = (values.pods ?? 'default')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((name) => {
      const variant = parseVariantSpec(name);
      const file = variant === undefined ? name : `openb_pod_list_${variantSource(variant.kind)}.csv`;
      return { variant, path: resolveTraceFile(file, dataDir, 'openb_pod_list_default.csv', 'openb_pod_list_') };
    });
  if (podLists.length === 0) throw new UsageError('--pods names no pod list');
  if (values.plot !== undefined && podLists.length > 1) throw new UsageError('--plot takes one file: use it with one --pods workload (each workload gets its own plot by default)');
  const inputs = podLists.map(({ variant, path: file }) => [variant === undefined ? 'pod list' : 'pod list (the source of gen- variants)', file] as const);
  for (const [what, file] of [['node list', nodesPath] as const, ...inputs]) {
    if (!existsSync(file)) {
      throw new UsageError(
        `trace ${what} not found: ${file}\n` +
          '(the openb trace is the cluster-trace-gpu-v2023/csv/ folder of the public alibaba/clusterdata repository; ' +
          `put its CSV files in ${DEFAULT_DATA_DIR} or pass --data-dir DIR, or --nodes / --pods)`,
      );
    }
  }
  const sources = new Map<string, TracePod[]>();
  const podsPaths = podLists.map(({ variant, path: file }) => {
    if (variant === undefined) return file;
    let source = sources.get(file);
    if (source === undefined) sources.set(file, (source = parsePodCsv(readFileSync(file, 'utf8'), file)));
    try {
      return writeVariant(variant, source);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(error.message);
      throw error;
    }
  });
  return {
    nodesPath,
    workloads: podsPaths.map((podsPath) => {
      const plotPath = path.resolve(values.plot ?? path.join(repoRoot, '.bench-out', 'trace', `${workloadKey(podsPath)}.svg`));
      return { podsPath, publishedPath: path.join(path.dirname(podsPath), 'published_alloc_summary.csv'), plotPath, resultsPath: plotPath.replace(/(\.svg)?$/i, '.json') };
    }),
    seeds,
    policies: policies as PolicyName[],
    json: values.json ?? false,
    markdown: values.markdown ?? false,
    workers,
    tieBreak,
    record: values.record === true,
    command: commandLine(values),
  };
}

/** The options as given, in a form that runs again (paths as given too). */
function commandLine(values: CliValues<typeof TRACE_CLI.options>): string {
  const flags = Object.entries(values)
    .filter(([key, value]) => value !== undefined && value !== false && !['json', 'plot', 'record', 'data-dir', 'workers'].includes(key))
    .map(([key, value]) => (value === true ? `--${key}` : `--${key} ${String(value)}`));
  return ['npm run bench:trace --', ...flags].join(' ');
}

/** Where --record puts a workload's figures: the data of the docs' trace charts. */
export function recordedTracePath(workload: string): string {
  return path.join(repoRoot, 'docs', 'data', `trace-${workload.replace(/^openb_pod_list_/, 'openb-')}.json`);
}

/** Bundles the worker so the hot loop runs plain ESM (no loader hooks or export getters). */
async function bundleWorker(): Promise<string> {
  const outfile = path.join(tmpdir(), `trace-worker-${process.pid}.mjs`);
  await build({ entryPoints: [path.join(here, 'trace-worker.ts')], bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, logLevel: 'error' });
  return outfile;
}

async function runJobs(options: Options, podsPath: string, workerFile: string, jobs: readonly WorkerJob[], onResult: (r: SeedResult) => void): Promise<void> {
  const queue = [...jobs];
  const count = Math.min(options.workers, queue.length);
  const workers = Array.from({ length: count }, () => new Worker(workerFile, { workerData: { nodesPath: options.nodesPath, podsPath, tieBreak: options.tieBreak } }));
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
  const at130BySeed = results.flatMap((r) => r.checkpoints.filter(([p]) => p === MAX_PERCENT).map(([, v]) => v));
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
    sd130: sampleSd(at130BySeed),
    at130BySeed,
  };
}

/** Replays one workload for every policy and seed; per-seed progress on stderr. */
async function runWorkload(options: Options, workload: Workload, workerFile: string): Promise<PolicyResult[]> {
  const jobs: WorkerJob[] = [];
  for (const policy of options.policies) for (let s = 0; s < options.seeds; s++) jobs.push({ policy, seed: FIRST_SEED + s });
  const byPolicy = new Map<PolicyName, SeedResult[]>(options.policies.map((p) => [p, []]));
  await runJobs(options, workload.podsPath, workerFile, jobs, (r) => {
    byPolicy.get(r.policy)?.push(r);
    const a130 = r.checkpoints.find(([p]) => p === MAX_PERCENT)?.[1];
    process.stderr.write(`  ${workloadKey(workload.podsPath)} ${r.policy} seed ${r.seed}: alloc@130% ${a130?.toFixed(2) ?? '-'} (${r.seconds.toFixed(1)} s)\n`);
  });
  const results = options.policies.map((p) => aggregate(p, (byPolicy.get(p) ?? []).sort((a, b) => a.seed - b.seed)));
  const key = workloadKey(workload.podsPath);
  const published: PublishedRow[] = existsSync(workload.publishedPath) ? parsePublishedCsv(readFileSync(workload.publishedPath, 'utf8')) : [];
  const recorded = toTraceResults(results, published, { workload: key, seeds: options.seeds, tieBreak: options.tieBreak, command: options.command, measured: new Date().toISOString().slice(0, 10) });
  // The paper's counterparts of the policies run, and FGD, its best.
  const paper = ['FGD', ...options.policies.flatMap((p) => PAPER_POLICY[p] ?? [])];
  const text = `${JSON.stringify(recorded, null, 2)}\n`;
  mkdirSync(path.dirname(workload.plotPath), { recursive: true });
  writeFileSync(workload.resultsPath, text);
  if (options.record) {
    mkdirSync(path.dirname(recordedTracePath(key)), { recursive: true });
    writeFileSync(recordedTracePath(key), text);
  }
  writeFileSync(workload.plotPath, await renderTraceChart(recorded, { paper }));
  return results;
}

async function main(): Promise<void> {
  const options = readCommandLine(TRACE_CLI, process.argv.slice(2), readOptions);
  const started = performance.now();
  const workerFile = await bundleWorker();
  const done: { workload: Workload; results: PolicyResult[] }[] = [];
  try {
    for (const workload of options.workloads) done.push({ workload, results: await runWorkload(options, workload, workerFile) });
  } finally {
    rmSync(workerFile, { force: true });
  }
  const wall = (performance.now() - started) / 1000;
  if (options.markdown) {
    const tables = done.map(({ workload, results }) => ({ workload: workloadKey(workload.podsPath), results, published: existsSync(workload.publishedPath) ? parsePublishedCsv(readFileSync(workload.publishedPath, 'utf8')) : [] }));
    process.stdout.write(`${formatSummaryMarkdown(tables, options.seeds)}\n`);
    process.stderr.write(`wall time: ${wall.toFixed(1)} s\n`);
    return;
  }
  if (options.json) {
    // One workload: {policy: …} as always; several: keyed by workload.
    const json = done.length === 1 ? toJson(done[0]?.results ?? []) : Object.fromEntries(done.map((d) => [workloadKey(d.workload.podsPath), toJson(d.results)]));
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    process.stderr.write(`${done.map((d) => `plot: ${d.workload.plotPath} (figures: ${d.workload.resultsPath})`).join('\n')}\nwall time: ${wall.toFixed(1)} s\n`);
    return;
  }
  for (const { workload, results } of done) {
    const key = workloadKey(workload.podsPath);
    const published: PublishedRow[] = existsSync(workload.publishedPath) ? parsePublishedCsv(readFileSync(workload.publishedPath, 'utf8')) : [];
    process.stdout.write(`workload ${key}: ${options.seeds} seeds (${FIRST_SEED}..${FIRST_SEED + options.seeds - 1}), tie-break ${options.tieBreak}, ${options.workers} workers\n\n`);
    process.stdout.write(`${formatTable(results, published, key)}\n\n`);
    if (results.some((r) => r.policy in ABLATIONS)) process.stdout.write(`${formatAblationTable(results, ABLATIONS)}\n\n`);
    process.stdout.write(`plot: ${workload.plotPath} (figures: ${workload.resultsPath}${options.record ? `, recorded in ${recordedTracePath(key)}` : ''})\n\n`);
  }
  process.stdout.write(`wall time: ${wall.toFixed(1)} s\n`);
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${errorStack(error)}\n`);
    process.exit(1);
  });
}
