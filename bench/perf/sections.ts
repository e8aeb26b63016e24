// The sections of `npm run bench`, in the order they run: each one's own
// options, how it checks them, what it runs and the rows it reports. The
// command (cli.ts) dispatches from this table and prints --help from it.
import { resolve } from 'node:path';
import { MAX_BODY_BYTES } from '../../lambdas/extender/router';
import type { BundleResult } from './bundles';
import { measureBundles } from './bundles';
import { runInChild } from './child-process';
import type { ClusterHarness, LabelerResult, ReconcilerResult } from './cluster-bench';
import { benchLabeler, benchReconciler } from './cluster-bench';
import { invalidVcpu } from './cpu-quota';
import { benchScale } from './scale-bench';
import { benchScaleFromZero, type ScaleFromZeroResult, type ScaleFromZeroStages } from './scale-from-zero';
import { benchSimulateExact, benchSimulateFast, type SimulateBenchResult } from '../simulate/simulate-bench';
import { scaleRows } from './scale-rows';
import type { ThroughputResult } from './scheduler-throughput';
import { benchSchedulerThroughput, DEPLOYED_CLIENT_RATE_LIMIT } from './scheduler-throughput';
import { largestFullNodesCount } from './extender-fixtures';
import type { LatencyCase, LatencyResult } from './extender-latency';
import type { MemoryResult } from './extender-memory';
import type { BenchRow } from './report-table';
import { count, kib, mib, ms, ratio } from './report-table';
import { UsageError, type CliOptions, type CliValues } from '../../cli/command-line';

/** What a section hands back: its rows of the table and its figures for the JSON. */
export interface SectionOutcome {
  readonly rows: readonly BenchRow[];
  readonly json: unknown;
}

/** What a section runs with. */
export interface SectionContext {
  readonly log: (message: string) => void;
  /** Where sections build and leave their own files: the project's .bench-out, whatever --out says (cli.ts). */
  readonly outDir: string;
  /** The moto + control plane harness the cluster sections share; set for them only. */
  readonly harness: ClusterHarness | undefined;
}

export type SectionRun = (context: SectionContext) => Promise<SectionOutcome>;

export interface BenchSection {
  /** Its own options, as the command line names them (each belongs to one section). */
  readonly options: CliOptions;
  /** Its figures' key in the JSON; the section's name when absent. */
  readonly jsonKey?: string;
  /** Runs on the moto + control plane harness, started once for all such sections. */
  readonly onCluster?: boolean;
  /** Checks its options (a UsageError names the bad one) before anything runs, and returns how to run it. */
  readonly prepare: (values: Readonly<Record<string, string | boolean | undefined>>) => SectionRun;
}

/** A section from its options, how it reads them, and how it runs with what it read. */
function benchSection<const O extends CliOptions, S>(section: {
  readonly options: O;
  readonly jsonKey?: string;
  readonly onCluster?: boolean;
  readonly read: (values: CliValues<O>) => S;
  readonly run: (settings: S, context: SectionContext) => Promise<SectionOutcome>;
}): BenchSection {
  const { read, run, ...rest } = section;
  return {
    ...rest,
    prepare: (values) => {
      const settings = read(values as CliValues<O>);
      return (context) => run(settings, context);
    },
  };
}

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got ${text}`);
  return n;
}

function vcpu(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  const problem = invalidVcpu(n, text);
  if (problem !== undefined) throw new UsageError(`--scale-vcpu ${problem}`);
  return n;
}

/** A section's harness: set for the cluster sections, which run inside the one the command starts. */
function clusterHarness(context: SectionContext): ClusterHarness {
  if (context.harness === undefined) throw new Error('a cluster section ran without the cluster harness');
  return context.harness;
}

/**
 * The sections, in the order they run: each with its own options, which
 * --help lists in this order, and its runner. The cluster sections share
 * one harness, and the labeler's nodes are there when the reconciler runs.
 */
export const SECTIONS = {
  extender: benchSection({
    options: { iterations: { type: 'string', value: 'n', default: '300', description: 'timed filter+prioritize pairs per extender case' } },
    read: (values) => positive('iterations', values.iterations),
    run: async (iterations, { log }) => {
      const r = await extenderLatency(iterations, log);
      return { rows: r.rows, json: r.results };
    },
  }),
  memory: benchSection({
    options: {},
    read: () => undefined,
    run: async (_settings, { log }) => {
      const r = await extenderMemory(log);
      return { rows: r.rows, json: r.result };
    },
  }),
  bundles: benchSection({
    options: { 'init-runs': { type: 'string', value: 'n', default: '15', description: 'fresh-process imports per bundle (cold start)' } },
    read: (values) => positive('init-runs', values['init-runs']),
    run: async (initRuns, { outDir, log }) => {
      const r = await bundles(resolve(outDir, 'bundles'), initRuns, log);
      return { rows: r.rows, json: r.results };
    },
  }),
  labeler: benchSection({
    options: { nodes: { type: 'string', value: 'n', default: '1000', description: 'nodes for the labeler' } },
    onCluster: true,
    read: (values) => positive('nodes', values.nodes),
    run: async (nodes, context) => {
      const r = await benchLabeler(clusterHarness(context), nodes, 16, context.log);
      return { rows: labelerRows(r), json: r };
    },
  }),
  reconciler: benchSection({
    options: { pods: { type: 'string', value: 'n', default: '10000', description: 'opted-in pods for the reconciler' } },
    onCluster: true,
    read: (values) => positive('pods', values.pods),
    run: async (pods, context) => {
      const r = await benchReconciler(clusterHarness(context), { pods, podsWithMetrics: Math.min(300, pods), writeCap: 50, concurrency: 24 }, context.log);
      return { rows: reconcilerRows(r), json: r };
    },
  }),
  e2e: benchSection({
    options: {
      'e2e-nodes': { type: 'string', value: 'n', default: '100', description: '8-GPU nodes for e2e (kube-scheduler throughput)' },
      'e2e-pods': { type: 'string', value: 'n', default: '400', description: 'one-GPU pods for e2e, scheduled once without and once with the extender' },
    },
    onCluster: true,
    read: (values) => ({ nodes: positive('e2e-nodes', values['e2e-nodes']), pods: positive('e2e-pods', values['e2e-pods']) }),
    run: async (size, context) => {
      const r = await benchSchedulerThroughput(clusterHarness(context), size, context.log);
      return { rows: throughputRows(r), json: r };
    },
  }),
  scale: benchSection({
    options: {
      'scale-nodes': { type: 'string', value: 'n', default: '1000', description: 'GPU nodes in the API server for scale (full size: 5000)' },
      'scale-pods': { type: 'string', value: 'n', default: '10000', description: 'pods bound to them for scale (full size: 50000)' },
      'scale-seconds': { type: 'string', value: 'n', default: '60', description: 'length of the warm container\'s steady scheduling period for scale' },
      'scale-commit': { type: 'string', value: 'rev', description: 'for scale: bundle the extender of this commit (git archive) instead of the working tree' },
      'scale-rate': { type: 'string', value: 'n', default: '5', description: 'pods scheduled (and as many deleted) per second during that period' },
      'scale-vcpu': {
        type: 'string',
        value: 'x',
        description:
          "for scale: run the extender containers under a CPU quota of x vCPU, as a Lambda of x × 1,769 MB gets (0.29 ≈ 512 MB; the extender's default 1,769 MB is 1); needs write access to the cgroup tree",
      },
    },
    read: (values) => ({
      nodes: positive('scale-nodes', values['scale-nodes']),
      pods: positive('scale-pods', values['scale-pods']),
      seconds: positive('scale-seconds', values['scale-seconds']),
      ratePerSecond: positive('scale-rate', values['scale-rate']),
      commit: values['scale-commit'],
      vcpu: vcpu(values['scale-vcpu']),
    }),
    run: async ({ commit, vcpu: quota, ...size }, { outDir, log }) => {
      log(`[bench] scale: ${size.nodes} nodes, ${size.pods} pods in a local kube-apiserver`);
      const r = await benchScale(
        {
          ...size,
          outDir: resolve(outDir, 'scale'),
          ...(commit === undefined ? {} : { commit }),
          ...(quota === undefined ? {} : { vcpu: quota }),
        },
        log,
      );
      return { rows: scaleRows(r), json: r };
    },
  }),
  'scale-from-zero': benchSection({
    options: {
      'scale-from-zero-runs': { type: 'string', value: 'n', default: '5', description: 'GPU pods no node fits, one after the other, for scale-from-zero (as many again for its control)' },
    },
    jsonKey: 'scaleFromZero',
    read: (values) => positive('scale-from-zero-runs', values['scale-from-zero-runs']),
    run: async (runs, { log }) => {
      log(`[bench] scale-from-zero: ${runs} pods through Karpenter, kube-scheduler, the extender and the labeler, and ${runs} for the control`);
      const r = await benchScaleFromZero({ runs }, log);
      return {
        rows: scaleFromZeroRows(r),
        json: { runs, pendingToBoundMedianS: r.ours.medians.pendingToBoundS, addedOverControlMedianS: r.addedOverControlMedianS, stages: stagesJson(r.ours.medians) },
      };
    },
  }),
  simulate: benchSection({
    options: {
      'simulate-nodes': { type: 'string', value: 'n', default: '5000', description: 'nodes of the generated dump for simulate (the fast path)' },
      'simulate-pods': { type: 'string', value: 'n', default: '50000', description: 'pods of that dump, 2 % of them pending' },
    },
    read: (values) => ({ nodes: positive('simulate-nodes', values['simulate-nodes']), pods: positive('simulate-pods', values['simulate-pods']) }),
    run: async (size, { log }) => {
      const r = await benchSimulateFast({ ...size, pendingShare: 0.02, seed: 1 }, log);
      return { rows: simulateRows(r, 30_000), json: r };
    },
  }),
  'simulate-exact': benchSection({
    options: {
      'simulate-exact-nodes': { type: 'string', value: 'n', default: '500', description: 'nodes of the generated dump for simulate-exact (10 pods a node, 4 % pending)' },
    },
    jsonKey: 'simulateExact',
    read: (values) => positive('simulate-exact-nodes', values['simulate-exact-nodes']),
    run: async (nodes, { log }) => {
      const r = await benchSimulateExact({ nodes, pods: nodes * 10, pendingShare: 0.04, seed: 1 }, log);
      return { rows: simulateRows(r, 120_000), json: r };
    },
  }),
} as const satisfies Record<string, BenchSection>;

export type SectionName = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];
/** Names `--only` also takes, each standing for several sections. */
export const SECTION_GROUPS: ReadonlyMap<string, readonly SectionName[]> = new Map([['cluster', ['reconciler', 'labeler']]]);

/**
 * The guards each run is checked against (docs/benchmarks.md): what a user
 * feels (throughput through kube-scheduler as deployed, the extender's
 * latency at 5,000 nodes, a bundle a cold start reads quickly). The other
 * ratios are printed to watch, not to chase.
 */
const GUARD = { nodeNames5000RatioToJson: 3, extenderBundleBytes: 1_000_000, deployedThroughputRatio: 0.95, scaleFromZeroAddedS: 2 } as const;

async function extenderLatency(iterations: number, log: (message: string) => void): Promise<{ rows: BenchRow[]; results: LatencyResult[] }> {
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

async function extenderMemory(log: (message: string) => void): Promise<{ rows: BenchRow[]; result: MemoryResult }> {
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

async function bundles(outDir: string, runs: number, log: (message: string) => void): Promise<{ rows: BenchRow[]; results: BundleResult[] }> {
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

/** The stages of ours, named as the JSON names them (the total is beside them). */
function stagesJson(m: ScaleFromZeroStages): Omit<ScaleFromZeroStages, 'pendingToBoundS'> {
  const { pendingToBoundS: _total, ...stages } = m;
  return stages;
}

function scaleFromZeroRows(r: ScaleFromZeroResult): BenchRow[] {
  const section = `Scale from zero (Karpenter launching ${r.instanceType ?? 'an H100 type'} in moto; medians of ${r.ours.runs.length} pods, control ${r.control.runs.length})`;
  const s = (value: number | undefined): string => (value === undefined ? '–' : `${value.toFixed(2)} s`);
  const o = r.ours.medians;
  const c = r.control.medians;
  return [
    { section, measurement: 'pending → NodeClaim', value: `${s(o.pendingToNodeClaimS)} (control ${s(c.pendingToNodeClaimS)})` },
    { section, measurement: 'NodeClaim → node registered', value: `${s(o.nodeClaimToRegisteredS)} (control ${s(c.nodeClaimToRegisteredS)})` },
    { section, measurement: 'registered → our labels', value: s(o.registeredToLabelsS) },
    { section, measurement: 'labels → start-up taint lifted', value: s(o.labelsToTaintRemovedS) },
    { section, measurement: '→ bound (ours: after the taint; control: after registration)', value: `${s(o.toBoundS)} (control ${s(c.toBoundS)})` },
    { section, measurement: 'pending → bound', value: `${s(o.pendingToBoundS)} (control, the default scheduler without start-up taint: ${s(c.pendingToBoundS)})` },
    {
      section,
      measurement: 'what ours adds over the control, at the median',
      value: s(r.addedOverControlMedianS),
      target: `≤ ${GUARD.scaleFromZeroAddedS} s`,
      ok: r.addedOverControlMedianS <= GUARD.scaleFromZeroAddedS,
    },
  ];
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
