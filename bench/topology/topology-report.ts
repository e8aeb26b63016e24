import type { TopologyMetrics } from './topology-metrics';
import type { TopologyPolicy } from './topology-policies';
import { POLICY_LABELS } from './topology-policies';

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

const BAR_METRICS: readonly { label: string; value: (m: TopologyMetrics) => number; max: (rows: readonly PolicyRow[]) => number; unit: string }[] = [
  { label: 'fitting jobs in one bottom block', value: (m) => m.oneBlockPercent, max: () => 100, unit: '%' },
  { label: 'bottom blocks per job', value: (m) => m.blocksPerJob, max: (rows) => Math.max(1, ...rows.map((r) => r.metrics.blocksPerJob)), unit: '' },
  { label: 'mean hops between ranks', value: (m) => m.meanHops, max: (rows) => Math.max(1, ...rows.map((r) => r.metrics.meanHops)), unit: '' },
  { label: 'GPU allocation', value: (m) => m.allocation, max: () => 100, unit: '%' },
];

const COLORS = ['#9e9e9e', '#ff9800', '#2196f3', '#4caf50'];

/** One panel per metric, one bar per policy. */
export function renderSvg(rows: readonly PolicyRow[], title: string): string {
  const panelWidth = 260;
  const barArea = 150;
  const width = panelWidth * BAR_METRICS.length + 20;
  const height = 300;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`, `<text x="10" y="18" font-size="14">${escape(title)}</text>`];
  BAR_METRICS.forEach((metric, p) => {
    const x0 = 10 + p * panelWidth;
    const max = metric.max(rows);
    parts.push(`<text x="${x0}" y="44">${escape(metric.label)}</text>`);
    rows.forEach((row, i) => {
      const value = metric.value(row.metrics);
      const h = (barArea * Math.max(0, value)) / max;
      const x = x0 + 10 + i * 55;
      parts.push(`<rect x="${x}" y="${60 + barArea - h}" width="40" height="${h}" fill="${COLORS[i % COLORS.length] ?? '#000'}"/>`);
      parts.push(`<text x="${x}" y="${55 + barArea - h}">${value.toFixed(metric.unit === '%' ? 1 : 2)}</text>`);
    });
  });
  rows.forEach((row, i) => {
    parts.push(`<rect x="${10 + i * 230}" y="${height - 30}" width="12" height="12" fill="${COLORS[i % COLORS.length] ?? '#000'}"/>`);
    parts.push(`<text x="${26 + i * 230}" y="${height - 20}">${escape(POLICY_LABELS[row.policy])}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
