/**
 * `npm run bench:topology` — placement of distributed training jobs on a
 * generated EKS cluster with the EC2 network hierarchy: per policy, how many
 * jobs stay within one bottom network node, how far apart their ranks are,
 * and what that costs in GPU allocation and waiting. Seeded, reproducible.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliValues } from '../../cli/command-line';
import { errorStack } from '../../lambdas/common/error-message';
import { createRng } from '../trace/seeded-rng';
import { DEFAULT_HIERARCHY, generateCluster, GPUS_PER_NODE } from './topology-cluster';
import type { TopologyMetrics } from './topology-metrics';
import { measureRun, meanMetrics } from './topology-metrics';
import type { TopologyPolicy } from './topology-policies';
import { createTopologyProfile, isTopologyPolicy, TOPOLOGY_POLICIES } from './topology-policies';
import { formatTable, toJson, toTopologyResults, type PolicyRow } from './topology-report';
import { renderTopologyChart } from '../../charts/topology-chart';
import { generateWorkload } from './topology-workload';
import { simulateTopology, workloadShapes } from './topology-simulation';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const FIRST_SEED = 1;

export const TOPOLOGY_CLI = defineCli({
  usage: 'npm run bench:topology -- [options]',
  summary: [
    'Topology-aware placement on a generated EKS cluster: 8-GPU nodes under bottom network',
    'nodes of 8-32, several per layer above, two zones; a seeded stream of multi-node jobs',
    '(2-32 nodes, with gpu.nvidia.com/group-size), single-node and fractional pods arriving',
    'and finishing. Reports per policy the share of jobs that fit one bottom block placed in',
    'one, bottom blocks per job, mean hops between ranks, GPU allocation and pending time',
    '(mean over seeds). Prints a table (or JSON with --json) and the path of an SVG plot, whose',
    'figures go beside it as JSON (--record: also to docs/data/topology.json, for npm run charts).',
  ].join('\n'),
  options: {
    seeds: { type: 'string', value: 'n', description: `seeds ${FIRST_SEED}..n, each its own cluster and workload (default 5)` },
    jobs: { type: 'string', value: 'n', description: 'arrivals per seed (default 2000)' },
    load: { type: 'string', value: 'x', description: 'offered GPU-time over capacity, 0.1..2 (default 0.95)' },
    policy: { type: 'string', value: 'a,b', description: `policies, from ${TOPOLOGY_POLICIES.join(', ')} (default all)` },
    json: { type: 'boolean', description: 'print {policy: metrics} and nothing else on stdout' },
    plot: { type: 'string', value: 'file', description: 'the SVG plot (default .bench-out/topology/topology.svg); its figures go beside it as <name>.json' },
    record: { type: 'boolean', description: 'also write the figures to docs/data/topology.json, the docs\' chart\'s data (npm run charts)' },
  },
  examples: ['npm run bench:topology', 'npm run bench:topology -- --seeds 2 --jobs 500 --policy fgd,ours --json'],
});

interface Options {
  readonly seeds: number;
  readonly jobs: number;
  readonly load: number;
  readonly policies: readonly TopologyPolicy[];
  readonly json: boolean;
  readonly plot: string;
  readonly record: boolean;
}

function numberIn(text: string | undefined, flag: string, fallback: number, min: number, max: number, integer: boolean): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(Number.isFinite(value) && value >= min && value <= max && (!integer || Number.isInteger(value)))) {
    throw new UsageError(`--${flag} must be ${integer ? 'a whole number' : 'a number'} in ${min}..${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

function readOptions(values: CliValues<typeof TOPOLOGY_CLI.options>): Options {
  const policies = values.policy === undefined ? [...TOPOLOGY_POLICIES] : values.policy.split(',').map((p) => p.trim());
  for (const p of policies) if (!isTopologyPolicy(p)) throw new UsageError(`unknown policy ${JSON.stringify(p)}; choose from ${TOPOLOGY_POLICIES.join(', ')}`);
  return {
    seeds: numberIn(values.seeds, 'seeds', 5, 1, 100, true),
    jobs: numberIn(values.jobs, 'jobs', 2000, 10, 100_000, true),
    load: numberIn(values.load, 'load', 0.95, 0.1, 2, false),
    policies: policies.filter(isTopologyPolicy),
    json: values.json === true,
    plot: path.resolve(values.plot ?? path.join(repoRoot, '.bench-out/topology/topology.svg')),
    record: values.record === true,
  };
}

/** One seed: the same cluster and workload for every policy. */
export function runSeed(seed: number, options: Pick<Options, 'jobs' | 'load' | 'policies'>): Map<TopologyPolicy, TopologyMetrics> {
  const rng = createRng(seed);
  const cluster = generateCluster(DEFAULT_HIERARCHY, rng);
  const jobs = generateWorkload({ jobs: options.jobs, totalGpus: cluster.length * GPUS_PER_NODE, load: options.load }, rng);
  const shapes = workloadShapes(jobs);
  return new Map(options.policies.map((policy) => [policy, measureRun(cluster, simulateTopology(cluster, jobs, createTopologyProfile(policy, shapes)))]));
}

/** Where --record puts the figures: the data of the docs' topology chart. */
export const RECORDED_TOPOLOGY_PATH = path.join(repoRoot, 'docs', 'data', 'topology.json');

async function main(): Promise<void> {
  const options = readCommandLine(TOPOLOGY_CLI, process.argv.slice(2), readOptions);
  const started = performance.now();
  const perPolicy = new Map<TopologyPolicy, TopologyMetrics[]>(options.policies.map((p) => [p, []]));
  for (let seed = FIRST_SEED; seed < FIRST_SEED + options.seeds; seed++) {
    const t = performance.now();
    for (const [policy, metrics] of runSeed(seed, options)) perPolicy.get(policy)?.push(metrics);
    process.stderr.write(`  seed ${seed}: ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
  }
  const rows: PolicyRow[] = options.policies.map((policy) => ({ policy, metrics: meanMetrics(perPolicy.get(policy) ?? []) }));
  const command = `npm run bench:topology -- --seeds ${options.seeds} --jobs ${options.jobs} --load ${options.load} --policy ${options.policies.join(',')}`;
  const recorded = toTopologyResults(rows, { seeds: options.seeds, jobs: options.jobs, load: options.load, command, measured: new Date().toISOString().slice(0, 10) });
  const text = `${JSON.stringify(recorded, null, 2)}\n`;
  const resultsPath = options.plot.replace(/(\.svg)?$/i, '.json');
  mkdirSync(path.dirname(options.plot), { recursive: true });
  writeFileSync(resultsPath, text);
  if (options.record) writeFileSync(RECORDED_TOPOLOGY_PATH, text);
  writeFileSync(options.plot, await renderTopologyChart(recorded));
  const figures = `figures: ${resultsPath}${options.record ? `, recorded in ${RECORDED_TOPOLOGY_PATH}` : ''}`;
  const wall = ((performance.now() - started) / 1000).toFixed(1);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(toJson(rows), null, 2)}\n`);
    process.stderr.write(`plot: ${options.plot} (${figures})\nwall time: ${wall} s\n`);
    return;
  }
  process.stdout.write(`${options.seeds} seeds (${FIRST_SEED}..${FIRST_SEED + options.seeds - 1}), ${options.jobs} jobs each, load ${options.load}\n\n${formatTable(rows)}\n\nplot: ${options.plot} (${figures})\nwall time: ${wall} s\n`);
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`${errorStack(error)}\n`);
    process.exit(1);
  });
}
