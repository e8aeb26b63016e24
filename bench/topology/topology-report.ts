import type { TopologyMetrics } from './topology-metrics';
import type { TopologyPolicy } from './topology-policies';
import { POLICY_LABELS } from './topology-policies';
import type { TopologyResults } from '../../charts/topology-results';

export interface PolicyRow {
  readonly policy: TopologyPolicy;
  readonly metrics: TopologyMetrics;
}

const HEADER = ['Policy', 'Fitting jobs in one block', 'Bottom blocks per job', 'Mean hops between ranks', 'GPU allocation', 'Pending (all jobs)', 'Pending (multi-node)'];

export function formatTable(rows: readonly PolicyRow[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const { policy, metrics: m } of rows) {
    lines.push(
      `| ${POLICY_LABELS[policy]} | ${m.oneBlockPercent.toFixed(1)} % | ${m.blocksPerJob.toFixed(2)} | ${m.meanHops.toFixed(2)} | ${m.allocation.toFixed(2)} % | ${m.pendingMinutes.toFixed(0)} min | ${m.multiNodePendingMinutes.toFixed(0)} min |`,
    );
  }
  return lines.join('\n');
}

export function toJson(rows: readonly PolicyRow[]): Record<string, TopologyMetrics> {
  return Object.fromEntries(rows.map((r) => [r.policy, r.metrics]));
}

/** What `npm run bench:topology` records (the topology chart's data). */
export function toTopologyResults(
  rows: readonly PolicyRow[],
  run: { readonly seeds: number; readonly jobs: number; readonly load: number; readonly command: string; readonly measured: string },
): TopologyResults {
  return { ...run, policies: rows.map(({ policy, metrics }) => ({ policy, label: POLICY_LABELS[policy], metrics })) };
}
