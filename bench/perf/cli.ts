// `npm run bench`: the performance benchmarks in one table
// (Markdown, with the machine's CPU) and the same figures as JSON.
//   npm run bench                          everything (several minutes)
//   npm run bench -- --only extender,bundles
//   npm run bench -- --out results.json --iterations 500
// Which sections there are, their options and what each runs: sections.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { ClusterHarness } from './cluster-bench';
import { startClusterHarness } from './cluster-bench';
import type { BenchRow } from './report-table';
import { formatTable } from './report-table';
import { SECTION_GROUPS, SECTION_NAMES, SECTIONS, type SectionName, type SectionRun } from './sections';
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliOptions, type CliValues } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';
import type { ScaleResult } from './scale-bench';
import type { ThroughputResult } from './scheduler-throughput';
import { recordSystemFigures, RECORDED_SYSTEM_PATH, systemFiguresOf } from './system-record';
import { PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';

/**
 * Where the sections build their bundles: under the project whatever --out
 * says, since the scale section's container imports packages that Node
 * resolves from the bundle's own location (the project's node_modules).
 */
const BUILD_DIR = join(PROJECT_ROOT, '.bench-out');

const GENERAL_OPTIONS = {
  only: {
    type: 'string',
    value: 'sections',
    description: `comma-separated sections: ${SECTION_NAMES.join(', ')}, ${[...SECTION_GROUPS]
      .map(([group, names]) => `or ${group} (= ${names.join(',')})`)
      .join(', ')}; default all`,
  },
  out: { type: 'string', value: 'file', default: '.bench-out/bench.json', description: 'where the JSON results go' },
  json: { type: 'boolean', description: "print only each section's figures as JSON on stdout ({\"scaleFromZero\": {…}}, …) instead of the table" },
  record: { type: 'boolean', description: 'also merge the cold first answer (scale) and the throughput (e2e) into docs/data/system-bench.json, by cluster size: the system chart\'s data (npm run charts)' },
} as const satisfies CliOptions;

export const BENCH_CLI = defineCli({
  usage: 'npm run bench -- [options]',
  summary: [
    'Speed and memory: the extender hot path against a JSON baseline, its memory with a big',
    'cluster cached, the Lambda bundles (size, cold start), and the reconciler and labeler at',
    'scale against moto and a local kube-apiserver, kube-scheduler throughput with and without',
    'the extender, and a cold and a warm extender container against a big cluster in a local',
    'kube-apiserver (scale). Progress goes to stderr; stdout gets one',
    'Markdown table with the machine\'s CPU, and the same figures go to a JSON file. Exit 1',
    'if a section failed. Everything takes several minutes; the in-process parts about 4.',
  ].join('\n'),
  options: { ...GENERAL_OPTIONS, ...Object.assign({}, ...SECTION_NAMES.map((name) => SECTIONS[name].options)) } as typeof GENERAL_OPTIONS & CliOptions,
  examples: [
    'npm run bench',
    'npm run bench -- --only extender,memory,bundles',
    'npm run bench -- --only e2e --e2e-pods 800',
    'npm run bench -- --only scale --scale-nodes 5000 --scale-pods 50000',
    'npm run bench -- --out results.json --iterations 500',
  ],
});

/** What a command line asks for: the sections in the order given, where the JSON goes, and each section's runner (every section's options checked). */
export interface BenchPlan {
  readonly only: ReadonlySet<SectionName>;
  readonly out: string;
  /** Stdout gets the sections' figures as JSON instead of the table. */
  readonly json: boolean;
  readonly record: boolean;
  readonly runs: ReadonlyMap<SectionName, SectionRun>;
}

export function benchPlan(values: CliValues<typeof BENCH_CLI.options>): BenchPlan {
  const only = new Set<SectionName>();
  for (const raw of (values.only ?? SECTION_NAMES.join(',')).split(',').map((s) => s.trim()).filter(Boolean)) {
    const names = SECTION_GROUPS.get(raw) ?? ((SECTION_NAMES as readonly string[]).includes(raw) ? [raw as SectionName] : undefined);
    if (names === undefined) throw new UsageError(`unknown section "${raw}"`);
    for (const name of names) only.add(name);
  }
  const runs = new Map(SECTION_NAMES.map((name) => [name, SECTIONS[name].prepare(values)] as const));
  return { only, out: resolve(values.out), json: values.json === true, record: values.record === true, runs };
}

const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

async function main(): Promise<void> {
  const plan = readCommandLine(BENCH_CLI, process.argv.slice(2), benchPlan);
  const cpu = cpus();
  const machine = {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadavg()[0] ?? 0,
  };
  const started = Date.now();
  const rows: BenchRow[] = [
    { section: 'Machine', measurement: 'CPU', value: `${machine.cpuModel} × ${machine.cores}, ${machine.memoryGiB} GiB, Node ${machine.node}, load ${machine.loadAverageAtStart.toFixed(1)}` },
  ];
  const json: Record<string, unknown> = { machine, startedAt: new Date(started).toISOString(), sections: [...plan.only] };
  const sectionFigures: Record<string, unknown> = {};
  const failures: string[] = [];
  const attempt = async (section: string, run: () => Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (error) {
      const message = errorMessage(error);
      failures.push(`${section}: ${message}`);
      rows.push({ section, measurement: 'FAILED', value: message.split('\n')[0] ?? message, ok: false });
      log(`[bench] ${section} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
    }
  };
  const runSection = (name: SectionName, harness?: ClusterHarness): Promise<void> =>
    attempt(name, async () => {
      const outcome = await plan.runs.get(name)!({ log, outDir: BUILD_DIR, harness });
      rows.push(...outcome.rows);
      json[SECTIONS[name].jsonKey ?? name] = outcome.json;
      sectionFigures[SECTIONS[name].jsonKey ?? name] = outcome.json;
    });

  const selected = SECTION_NAMES.filter((name) => plan.only.has(name));
  const onCluster = selected.filter((name) => SECTIONS[name].onCluster === true);
  for (const name of selected) {
    if (!onCluster.includes(name)) await runSection(name);
    else if (name === onCluster[0]) {
      // The cluster sections run one after another on one harness, where the first of them stands in the table.
      let harness: ClusterHarness | undefined;
      await attempt('cluster', async () => {
        log('[bench] starting moto and the control plane');
        harness = await startClusterHarness(log);
        for (const clusterSection of onCluster) await runSection(clusterSection, harness);
      });
      await harness?.stop();
    }
  }

  json.durationMs = Date.now() - started;
  json.rows = rows;
  json.failures = failures;
  console.log(plan.json ? JSON.stringify(sectionFigures) : formatTable(rows));
  mkdirSync(dirname(plan.out), { recursive: true });
  writeFileSync(plan.out, `${JSON.stringify(json, null, 2)}\n`);
  if (plan.record) {
    const figures = systemFiguresOf({ scale: json.scale as ScaleResult | undefined, e2e: json.e2e as ThroughputResult | undefined }, new Date().toISOString().slice(0, 10));
    recordSystemFigures(RECORDED_SYSTEM_PATH, figures);
    log(`[bench] recorded ${figures.coldFirstAnswer?.length ?? 0} cold-start and ${figures.throughput?.length ?? 0} throughput figure(s) in ${RECORDED_SYSTEM_PATH}`);
  }
  log(`[bench] ${((Date.now() - started) / 1000).toFixed(0)} s; JSON in ${plan.out}`);
  process.exitCode = failures.length > 0 ? 1 : 0;
}

if (isEntryPoint(import.meta.url)) {
  main()
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exitCode = 1;
    })
    // SDK keep-alive sockets and timers must not keep a finished benchmark alive.
    .finally(() => process.exit());
}
