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

/** The table as the README and docs/simulator.md show it: the settings it was measured at, ours in bold. */
export function formatMarkdown(rows: readonly PolicyRow[], settings: { readonly seeds: number; readonly jobs: number; readonly load: number }): string {
  const heading = `Mean of ${settings.seeds} seeds, ${settings.jobs.toLocaleString('en-US')} arrivals each, load ${settings.load}:`;
  const table = formatTable(rows).split('\n');
  const bolded = table.map((line, index) => {
    const row = rows[index - 2];
    if (row?.policy !== 'ours') return line;
    // Every cell but the allocation and pending ones, where ours is not the point.
    return line.replace(/^\| ([^|]+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|/, (_m, a: string, b: string, c: string, d: string) => `| **${a}** | **${b}** | **${c}** | **${d}** |`);
  });
  return [heading, '', ...bolded].join('\n');
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
