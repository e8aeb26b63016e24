// `npm run bench -- --only simulate` and `--only simulate-exact`: the
// simulator's fast path on a generated dump of a big cluster, and --exact
// (the real kube-apiserver, kube-scheduler and extender) on a smaller one.
// Generating the dump is not timed; reading it from a file is not part of it.
import { loadavg } from 'node:os';
import { ensureKubeBinaries } from '../../local/builds/kube-binaries';
import { startControlPlane } from '../../local/control-plane/control-plane';
import { simulateExact } from '../../simulator/exact';
import { simulate, type SimulationResult } from '../../simulator/simulate';
import { generateDump, type DumpSize } from './generated-dump';

export interface SimulateBenchResult {
  readonly path: 'fast' | 'exact';
  readonly nodes: number;
  readonly pods: number;
  readonly pending: number;
  readonly placed: number;
  readonly unschedulable: number;
  readonly placedOnTie: number;
  readonly wallMs: number;
  /** Process CPU time during the run (the exact path's components run in other processes). */
  readonly cpuMs: number;
  /** One-minute load average when the run started (2-core machine shared with others). */
  readonly loadAtStart: number;
}

function summary(size: DumpSize, result: SimulationResult, wallMs: number, cpuMs: number, loadAtStart: number): SimulateBenchResult {
  return {
    path: result.path,
    nodes: size.nodes,
    pods: size.pods,
    pending: result.placed.length + result.unschedulable.length,
    placed: result.placed.length,
    unschedulable: result.unschedulable.length,
    placedOnTie: result.placed.filter((p) => p.tiedWith.length > 0).length,
    wallMs,
    cpuMs,
    loadAtStart,
  };
}

async function timed(run: () => Promise<SimulationResult> | SimulationResult): Promise<{ result: SimulationResult; wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const used = process.cpuUsage(cpu);
  return { result, wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

/** The fast path on `size` (default 5,000 nodes, 50,000 pods, 2 % of them pending). */
export async function benchSimulateFast(size: DumpSize, log: (message: string) => void): Promise<SimulateBenchResult> {
  const dump = generateDump(size);
  log(`[bench] simulate: fast path, ${size.nodes} nodes, ${size.pods} pods`);
  const loadAtStart = loadavg()[0] ?? 0;
  const { result, wallMs, cpuMs } = await timed(() => simulate(dump.nodes, dump.pods));
  return summary(size, result, wallMs, cpuMs, loadAtStart);
}

/** --exact on `size`, on a control plane of its own; the wall time includes loading the dump, not starting the control plane. */
export async function benchSimulateExact(size: DumpSize, log: (message: string) => void): Promise<SimulateBenchResult> {
  const dump = generateDump(size);
  const binaries = await ensureKubeBinaries(log);
  const controlPlane = await startControlPlane({ binaries, defaultScheduler: false, log });
  try {
    log(`[bench] simulate-exact: ${size.nodes} nodes, ${size.pods} pods`);
    const loadAtStart = loadavg()[0] ?? 0;
    const { result, wallMs, cpuMs } = await timed(() => simulateExact(dump.nodes, dump.pods, {}, controlPlane.info, { log }));
    return summary(size, result, wallMs, cpuMs, loadAtStart);
  } finally {
    await controlPlane.stop();
  }
}
