import type { ClusterNode } from './topology-cluster';
import { bottomOf, hopsBetween } from './topology-cluster';
import type { JobOutcome, SimulationRun } from './topology-simulation';

/** One policy on one seed, or the mean over seeds. */
export interface TopologyMetrics {
  /** Of the multi-node jobs some bottom network node could hold when they started, the percent placed within one. */
  readonly oneBlockPercent: number;
  /** Mean number of bottom network nodes a multi-node job's pods are spread over. */
  readonly blocksPerJob: number;
  /** Mean switch hops between two ranks of a multi-node job (hopsBetween). */
  readonly meanHops: number;
  /** Time-weighted GPU allocation, percent. */
  readonly allocation: number;
  /** Mean minutes from arrival to start, every job. */
  readonly pendingMinutes: number;
  /** The same for multi-node jobs alone. */
  readonly multiNodePendingMinutes: number;
  /** Jobs that never started. */
  readonly neverStarted: number;
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length);

/** Mean hops over all pairs of a job's pods. */
export function meanPairHops(nodes: readonly ClusterNode[]): number {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      sum += hopsBetween(nodes[i] as ClusterNode, nodes[j] as ClusterNode);
      pairs++;
    }
  }
  return pairs === 0 ? 0 : sum / pairs;
}

export function measureRun(cluster: readonly ClusterNode[], run: SimulationRun): TopologyMetrics {
  const byName = new Map(cluster.map((n) => [n.name, n]));
  const started = run.outcomes.filter((o): o is JobOutcome & { start: number } => o.start !== undefined);
  const multi = started.filter((o) => o.job.pods > 1);
  const placedNodes = (o: JobOutcome) => o.nodes.map((n) => byName.get(n) as ClusterNode);
  const blocks = (o: JobOutcome) => new Set(placedNodes(o).map(bottomOf)).size;
  const fitting = multi.filter((o) => o.fitsOneBlock);
  const end = Math.max(0, ...started.map((o) => o.start));
  const waits = run.outcomes.map((o) => (o.start ?? end) - o.job.arrival);
  return {
    oneBlockPercent: fitting.length === 0 ? 100 : (100 * fitting.filter((o) => blocks(o) === 1).length) / fitting.length,
    blocksPerJob: mean(multi.map(blocks)),
    meanHops: mean(multi.map((o) => meanPairHops(placedNodes(o)))),
    allocation: run.allocation,
    pendingMinutes: mean(waits),
    multiNodePendingMinutes: mean(run.outcomes.flatMap((o, i) => (o.job.pods > 1 ? [waits[i] ?? 0] : []))),
    neverStarted: run.outcomes.length - started.length,
  };
}

export function meanMetrics(runs: readonly TopologyMetrics[]): TopologyMetrics {
  const of = (pick: (m: TopologyMetrics) => number) => mean(runs.map(pick));
  return {
    oneBlockPercent: of((m) => m.oneBlockPercent),
    blocksPerJob: of((m) => m.blocksPerJob),
    meanHops: of((m) => m.meanHops),
    allocation: of((m) => m.allocation),
    pendingMinutes: of((m) => m.pendingMinutes),
    multiNodePendingMinutes: of((m) => m.multiNodePendingMinutes),
    neverStarted: of((m) => m.neverStarted),
  };
}
