// `npm run bench`: the performance benchmarks in one table
// (Markdown, with the machine's CPU) and the same figures as JSON.
//   npm run bench                          everything (several minutes)
//   npm run bench -- --only extender,bundles
//   npm run bench -- --out results.json --iterations 500
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, resolve } from 'node:path';
import { MAX_BODY_BYTES } from '../../lambdas/extender/router';
import type { BundleResult } from './bundles';
import { measureBundles } from './bundles';
import { runInChild } from './child-process';
import type { ClusterHarness, LabelerResult, ReconcilerResult } from './cluster-bench';
import { benchLabeler, benchReconciler, startClusterHarness } from './cluster-bench';
import { invalidVcpu } from './cpu-quota';
import { benchScale } from './scale-bench';
import { benchSimulateExact, benchSimulateFast, type SimulateBenchResult } from '../simulate/simulate-bench';
import { scaleRows } from './scale-rows';
import type { ThroughputResult } from './scheduler-throughput';
import { benchSchedulerThroughput, DEPLOYED_CLIENT_RATE_LIMIT } from './scheduler-throughput';
import { largestFullNodesCount } from './extender-fixtures';
import type { LatencyCase, LatencyResult } from './extender-latency';
import type { MemoryResult } from './extender-memory';
import type { BenchRow } from './report-table';
import { count, formatTable, kib, mib, ms, ratio } from './report-table';
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliValues } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';

const SECTIONS = ['extender', 'memory', 'bundles', 'reconciler', 'labeler', 'e2e', 'scale', 'simulate', 'simulate-exact'] as const;
type Section = (typeof SECTIONS)[number];

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
  options: {
    only: { type: 'string', value: 'sections', description: `comma-separated sections: ${SECTIONS.join(', ')}, or cluster (= reconciler,labeler); default all` },
    out: { type: 'string', value: 'file', default: '.bench-out/bench.json', description: 'where the JSON results go' },
    iterations: { type: 'string', value: 'n', default: '300', description: 'timed filter+prioritize pairs per extender case' },
    'init-runs': { type: 'string', value: 'n', default: '15', description: 'fresh-process imports per bundle (cold start)' },
    pods: { type: 'string', value: 'n', default: '10000', description: 'opted-in pods for the reconciler' },
    nodes: { type: 'string', value: 'n', default: '1000', description: 'nodes for the labeler' },
    'e2e-nodes': { type: 'string', value: 'n', default: '100', description: '8-GPU nodes for e2e (kube-scheduler throughput)' },
    'e2e-pods': { type: 'string', value: 'n', default: '400', description: 'one-GPU pods for e2e, scheduled once without and once with the extender' },
    'scale-nodes': { type: 'string', value: 'n', default: '1000', description: 'GPU nodes in the API server for scale (full size: 5000)' },
    'scale-pods': { type: 'string', value: 'n', default: '10000', description: 'pods bound to them for scale (full size: 50000)' },
    'scale-seconds': { type: 'string', value: 'n', default: '60', description: 'length of the warm container\'s steady scheduling period for scale' },
    'scale-commit': { type: 'string', value: 'rev', description: 'for scale: bundle the extender of this commit (git archive) instead of the working tree' },
    'scale-rate': { type: 'string', value: 'n', default: '5', description: 'pods scheduled (and as many deleted) per second during that period' },
    'simulate-nodes': { type: 'string', value: 'n', default: '5000', description: 'nodes of the generated dump for simulate (the fast path)' },
    'simulate-pods': { type: 'string', value: 'n', default: '50000', description: 'pods of that dump, 2 % of them pending' },
    'simulate-exact-nodes': { type: 'string', value: 'n', default: '500', description: 'nodes of the generated dump for simulate-exact (10 pods a node, 4 % pending)' },
    'scale-vcpu': { type: 'string', value: 'x', description: "for scale: run the extender containers under a CPU quota of x vCPU, as a Lambda of x × 1,769 MB gets (0.29 ≈ 512 MB; the extender's default 1,769 MB is 1); needs write access to the cgroup tree" },
  },
  examples: [
    'npm run bench',
    'npm run bench -- --only extender,memory,bundles',
    'npm run bench -- --only e2e --e2e-pods 800',
    'npm run bench -- --only scale --scale-nodes 5000 --scale-pods 50000',
    'npm run bench -- --out results.json --iterations 500',
  ],
});

/**
 * The guards each run is checked against (docs/benchmarks.md): what a user
 * feels (throughput through kube-scheduler as deployed, the extender's
 * latency at 5,000 nodes, a bundle a cold start reads quickly). The other
 * ratios are printed to watch, not to chase.
 */
const GUARD = { nodeNames5000RatioToJson: 3, extenderBundleBytes: 1_000_000, deployedThroughputRatio: 0.95 } as const;

function benchOptions(values: CliValues<typeof BENCH_CLI.options>) {
  const positive = (name: string, text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got ${text}`);
    return n;
  };
  const vcpu = (text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const n = Number(text);
    const problem = invalidVcpu(n, text);
    if (problem !== undefined) throw new UsageError(`--scale-vcpu ${problem}`);
    return n;
  };
  const only = new Set<Section>();
  for (const raw of (values.only ?? SECTIONS.join(',')).split(',').map((s) => s.trim()).filter(Boolean)) {
    if (raw === 'cluster') {
      only.add('reconciler');
      only.add('labeler');
    } else if ((SECTIONS as readonly string[]).includes(raw)) only.add(raw as Section);
    else throw new UsageError(`unknown section "${raw}"`);
  }
  return {
    only,
    out: resolve(values.out),
    iterations: positive('iterations', values.iterations),
    initRuns: positive('init-runs', values['init-runs']),
    pods: positive('pods', values.pods),
    nodes: positive('nodes', values.nodes),
    e2eNodes: positive('e2e-nodes', values['e2e-nodes']),
    e2ePods: positive('e2e-pods', values['e2e-pods']),
    scaleNodes: positive('scale-nodes', values['scale-nodes']),
    scalePods: positive('scale-pods', values['scale-pods']),
    scaleSeconds: positive('scale-seconds', values['scale-seconds']),
    scaleRate: positive('scale-rate', values['scale-rate']),
    scaleCommit: values['scale-commit'],
    simulateNodes: positive('simulate-nodes', values['simulate-nodes']),
    simulatePods: positive('simulate-pods', values['simulate-pods']),
    simulateExactNodes: positive('simulate-exact-nodes', values['simulate-exact-nodes']),
    scaleVcpu: vcpu(values['scale-vcpu']),
  };
}

const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

async function extenderLatency(iterations: number): Promise<{ rows: BenchRow[]; results: LatencyResult[] }> {
  const maxFull = largestFullNodesCount(MAX_BODY_BYTES);
  const cases: LatencyCase[] = [
    ...[100, 1000, 5000].map((nodes) => ({ mode: 'NodeNames' as const, nodes })),
    ...[100, maxFull].map((nodes) => ({ mode: 'Nodes' as const, nodes })),
  ].map((c) => ({ ...c, podsPerNode: 10, iterations, warmup: Math.min(50, iterations) }));
  const results: LatencyResult[] = [];
  const rows: BenchRow[] = [];
  for (const c of cases) {
    log(`[bench] extender: ${c.mode}, ${c.nodes} nodes, ${c.iterations} iterations`);
    const r = await runInChild<LatencyResult>({ kind: 'extender-latency', input: c }, 10 * 60_000);
    results.push(r);
    const label = `${r.mode} ${count(r.nodes)} nodes${r.mode === 'Nodes' && r.nodes === maxFull ? ` (largest under 1 MiB: ${kib(r.requestBytes)})` : ''}`;
    rows.push({
      section: 'Extender filter+prioritize (ALB handler)',
      measurement: label,
      value: `median ${ms(r.handler.median)}, p99 ${ms(r.handler.p99)}; JSON baseline ${ms(r.baseline.median)}; ${ratio(r.ratio)}`,
      ...(r.mode === 'NodeNames' && r.nodes === 5000
        ? { target: `≤ ${GUARD.nodeNames5000RatioToJson}× JSON`, ok: r.ratio <= GUARD.nodeNames5000RatioToJson }
        : {}),
    });
    if (r.mode === 'NodeNames' && r.nodes === 1000) {
      // What bounds this row: the same child right after, with the decision
      // log and EMF output switched off, the handler otherwise unchanged.
      // Informational: the output is part of the handler (docs/benchmarks.md).
      log(`[bench] extender: NodeNames, 1000 nodes, log and EMF output off, ${c.iterations} iterations`);
      const quiet = await runInChild<LatencyResult>({ kind: 'extender-latency', input: c }, 10 * 60_000, QUIET_OUTPUT_ENV);
      rows.push({
        section: 'Extender filter+prioritize (ALB handler)',
        measurement: `${label}, log and EMF output off (what bounds the row above)`,
        value: `median ${ms(quiet.handler.median)}, p99 ${ms(quiet.handler.p99)}; JSON baseline ${ms(quiet.baseline.median)}; ${ratio(quiet.ratio)}`,
      });
    }
  }
  return { rows, results };
}

/** Powertools' own switches: no log line, no EMF document. */
const QUIET_OUTPUT_ENV = { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' } as const;

async function extenderMemory(): Promise<{ rows: BenchRow[]; result: MemoryResult }> {
  log('[bench] extender memory: 5,000 nodes, 50,000 pods, fresh process');
  const r = await runInChild<MemoryResult>({ kind: 'extender-memory', input: { nodes: 5000, pods: 50000 } }, 10 * 60_000);
  if (!r.requestOk) throw new Error('the extender did not answer 200 with 50,000 pods cached');
  return {
    result: r,
    rows: [
      {
        section: 'Extender memory',
        measurement: `${count(r.nodes)} nodes + ${count(r.pods)} pods cached`,
        value: `retained heap +${mib(r.retainedHeapMiB)}; heap at refresh (lists alive) +${mib(r.refreshHeapMiB)}; peak RSS +${mib(r.peakRssMiB)} over ${mib(r.baseRssMiB)}`,
      },
    ],
  };
}

async function bundles(outDir: string, runs: number): Promise<{ rows: BenchRow[]; results: BundleResult[] }> {
  log(`[bench] bundles: esbuild as CDK bundles them, ${runs} fresh-process imports each`);
  const results = await measureBundles(outDir, runs);
  const rows = results.map((b) => {
    const top = b.topContributors.slice(0, 3).map((c) => `${c.name} ${kib(c.bytes)}`).join(', ');
    return {
      section: 'Lambda bundle (esbuild, minified)',
      measurement: b.name,
      value: `${kib(b.bytes)}${b.name === 'empty handler' ? '' : ` (top: ${top})`}; init as on Lambda's runtime ${ms(b.initMs)} = ${ratio(b.initRatio)} empty, in a bare node ${ms(b.plainInitMs)} = ${ratio(b.plainInitRatio)} empty`,
      ...(b.name === 'extender' ? { target: '< 1 MB', ok: b.bytes < GUARD.extenderBundleBytes } : {}),
    };
  });
  return { rows, results };
}

function reconcilerRows(r: ReconcilerResult): BenchRow[] {
  const section = `Reconciler (moto + kube-apiserver)`;
  return [
    {
      section,
      measurement: `${count(r.pods)} opted-in pods: GetMetricData calls`,
      value: `${r.getMetricDataCalls} for ${count(r.metricQueries)} queries`,
      target: `= ceil(queries/500) = ${r.expectedGetMetricDataCalls}`,
      ok: r.getMetricDataCalls === r.expectedGetMetricDataCalls,
    },
    {
      section,
      measurement: `${count(r.pods)} opted-in pods: pod PATCHes`,
      value: `${r.podPatches} (+${r.nodePatches} node); ${r.annotatedPods} pods annotated after the run`,
      target: `≤ cap ${r.writeCap}`,
      ok: r.podPatches <= r.writeCap && r.annotatedPods === r.podPatches && r.errors === 0,
    },
    { section, measurement: `${count(r.pods)} opted-in pods: one run, wall time`, value: `${ms(r.wallMs)} (${ms(r.cloudWatchMs)} of it inside moto's GetMetricData)` },
    { section, measurement: `creating ${count(r.pods)} Running pods (setup, not the reconciler)`, value: ms(r.creationMs) },
  ];
}

function labelerRows(r: LabelerResult): BenchRow[] {
  const section = 'Labeler reconcile (moto + kube-apiserver)';
  const calls = Object.entries(r.ec2Calls).map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`).join(', ');
  const total = Object.values(r.ec2Calls).reduce((a, b) => a + b, 0);
  return [
    {
      section,
      measurement: `${count(r.nodes)} nodes: EC2 calls`,
      value: `${total} (${calls}); ${r.labeled} nodes labelled, ${r.failed} failed`,
      target: `≤ ceil(nodes/200) + 1 = ${Math.ceil(r.nodes / 200) + 1}`,
      ok: total <= Math.ceil(r.nodes / 200) + 1 && r.failed === 0,
    },
    { section, measurement: `${count(r.nodes)} nodes: first run, wall time`, value: `${ms(r.wallMs)} (${ms(r.ec2Ms)} of it inside moto's EC2)` },
    { section, measurement: `${count(r.nodes)} nodes: second run (nothing to write)`, value: `${ms(r.steadyWallMs)}, ${r.steadyEc2Calls} EC2 calls, ${r.steadyLabeled} written` },
    { section, measurement: `creating ${count(r.nodes)} nodes + instances (setup)`, value: ms(r.creationMs) },
  ];
}

function throughputRows(r: ThroughputResult): BenchRow[] {
  const section = 'kube-scheduler throughput (real scheduler, ALB adapter + real handler)';
  const perSecond = (n: number): string => `${n.toFixed(0)} pods/s`;
  const rows: BenchRow[] = [];
  for (const c of r.comparisons) {
    const limit = `${c.label} (qps ${c.clientRateLimit.qps}, burst ${c.clientRateLimit.burst})`;
    const statuses = Object.entries(c.with.extenderStatuses ?? {}).map(([status, n]) => `${n} × ${status}`).join(', ');
    rows.push(
      {
        section,
        measurement: `${count(r.pods)} one-GPU pods on ${count(r.nodes)} ${r.instanceType}, ${limit}: without the extender`,
        value: `${perSecond(c.without.podsPerSecond)} (${ms(c.without.firstToLastBindMs)} first to last bind)`,
      },
      {
        section,
        measurement: `same pods, same cluster, ${c.label}: with the extender`,
        value: `${perSecond(c.with.podsPerSecond)} (${ms(c.with.firstToLastBindMs)}); ${c.with.extenderCalls ?? 0} extender calls: ${statuses}, handler median ${ms(c.with.extenderHandlerMedianMs ?? 0)}`,
      },
      // The guard holds as deployed; with the client limit lifted the ratio shows what bounds the extender's path (two serial HTTP calls a pod).
      c.clientRateLimit.qps === DEPLOYED_CLIENT_RATE_LIMIT.qps && c.clientRateLimit.burst === DEPLOYED_CLIENT_RATE_LIMIT.burst
        ? { section, measurement: `${c.label}: with / without`, value: ratio(c.ratio), target: `≥ ${GUARD.deployedThroughputRatio}×`, ok: c.ratio >= GUARD.deployedThroughputRatio }
        : { section, measurement: `${c.label}: with / without`, value: ratio(c.ratio) },
    );
  }
  rows.push({ section, measurement: `creating ${count(r.nodes)} nodes + instances (setup)`, value: ms(r.nodeCreationMs) });
  return rows;
}

function simulateRows(r: SimulateBenchResult, targetMs: number): BenchRow[] {
  const section = r.path === 'fast' ? 'npm run simulate (fast path, in process)' : 'npm run simulate --exact (real kube-apiserver, kube-scheduler, extender)';
  return [
    {
      section,
      measurement: `${count(r.nodes)} nodes, ${count(r.pods)} pods (${count(r.pending)} pending for gpu-scheduler): wall time`,
      value: `${ms(r.wallMs)} (${ms(r.cpuMs)} CPU in this process; load ${r.loadAtStart.toFixed(1)} at start)`,
      target: `< ${ms(targetMs)}`,
      ok: r.wallMs < targetMs,
    },
    r.path === 'fast'
      ? { section, measurement: 'placed / unschedulable / placed on a tie', value: `${count(r.placed)} / ${count(r.unschedulable)} / ${count(r.placedOnTie)}` }
      : { section, measurement: 'placed / unschedulable (ties are not read back from kube-scheduler)', value: `${count(r.placed)} / ${count(r.unschedulable)}` },
  ];
}

async function main(): Promise<void> {
  const options = readCommandLine(BENCH_CLI, process.argv.slice(2), benchOptions);
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
  const json: Record<string, unknown> = { machine, startedAt: new Date(started).toISOString(), sections: [...options.only] };
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

  if (options.only.has('extender')) {
    await attempt('extender', async () => {
      const r = await extenderLatency(options.iterations);
      rows.push(...r.rows);
      json.extender = r.results;
    });
  }
  if (options.only.has('memory')) {
    await attempt('memory', async () => {
      const r = await extenderMemory();
      rows.push(...r.rows);
      json.memory = r.result;
    });
  }
  if (options.only.has('bundles')) {
    await attempt('bundles', async () => {
      const r = await bundles(resolve(dirname(options.out), 'bundles'), options.initRuns);
      rows.push(...r.rows);
      json.bundles = r.results;
    });
  }
  if (options.only.has('reconciler') || options.only.has('labeler') || options.only.has('e2e')) {
    let harness: ClusterHarness | undefined;
    await attempt('cluster', async () => {
      log('[bench] starting moto and the control plane');
      harness = await startClusterHarness(log);
      const h = harness;
      if (options.only.has('labeler')) {
        await attempt('labeler', async () => {
          const r = await benchLabeler(h, options.nodes, 16, log);
          rows.push(...labelerRows(r));
          json.labeler = r;
        });
      }
      if (options.only.has('reconciler')) {
        await attempt('reconciler', async () => {
          const r = await benchReconciler(h, { pods: options.pods, podsWithMetrics: Math.min(300, options.pods), writeCap: 50, concurrency: 24 }, log);
          rows.push(...reconcilerRows(r));
          json.reconciler = r;
        });
      }
      if (options.only.has('e2e')) {
        await attempt('e2e', async () => {
          const r = await benchSchedulerThroughput(h, { nodes: options.e2eNodes, pods: options.e2ePods }, log);
          rows.push(...throughputRows(r));
          json.e2e = r;
        });
      }
    });
    await harness?.stop();
  }

  if (options.only.has('scale')) {
    await attempt('scale', async () => {
      log(`[bench] scale: ${options.scaleNodes} nodes, ${options.scalePods} pods in a local kube-apiserver`);
      const r = await benchScale(
        {
          nodes: options.scaleNodes,
          pods: options.scalePods,
          seconds: options.scaleSeconds,
          ratePerSecond: options.scaleRate,
          outDir: resolve(dirname(options.out), 'scale'),
          ...(options.scaleCommit === undefined ? {} : { commit: options.scaleCommit }),
          ...(options.scaleVcpu === undefined ? {} : { vcpu: options.scaleVcpu }),
        },
        log,
      );
      rows.push(...scaleRows(r));
      json.scale = r;
    });
  }

  if (options.only.has('simulate')) {
    await attempt('simulate', async () => {
      const r = await benchSimulateFast({ nodes: options.simulateNodes, pods: options.simulatePods, pendingShare: 0.02, seed: 1 }, log);
      rows.push(...simulateRows(r, 30_000));
      json.simulate = r;
    });
  }
  if (options.only.has('simulate-exact')) {
    await attempt('simulate-exact', async () => {
      const r = await benchSimulateExact({ nodes: options.simulateExactNodes, pods: options.simulateExactNodes * 10, pendingShare: 0.04, seed: 1 }, log);
      rows.push(...simulateRows(r, 120_000));
      json.simulateExact = r;
    });
  }

  json.durationMs = Date.now() - started;
  json.rows = rows;
  json.failures = failures;
  const table = formatTable(rows);
  console.log(table);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(json, null, 2)}\n`);
  log(`[bench] ${((Date.now() - started) / 1000).toFixed(0)} s; JSON in ${options.out}`);
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
