import type { PublishedRow } from './published-results';
import { PAPER_POLICY } from './published-results';
import { alignColumns } from '../../simulator/placement-table';

/** One policy's result: mean allocation (percent) at each arrived-percent checkpoint. */
export interface PolicyResult {
  readonly policy: string;
  readonly seeds: number;
  /** Mean over seeds of allocation percent, index = arrived percent (0..max). NaN where no seed reached it. */
  readonly curve: readonly number[];
  /** Mean seconds one seed took (inside a worker). */
  readonly secondsPerSeed: number;
  /** Sample standard deviation over seeds of allocation at 130 % arrived; NaN with fewer than 2 seeds. */
  readonly sd130?: number;
  /** Allocation at 130 % arrived of each seed, in seed order (for paired differences between policies). */
  readonly at130BySeed?: readonly number[];
}

/** Sample standard deviation; NaN for fewer than two values. */
export function sampleSd(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
}

export function valueAt(result: PolicyResult, percent: number): number {
  return result.curve[percent] ?? Number.NaN;
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

/** `{policy: {alloc100, alloc130}}` in percent, two decimals. */
export function toJson(results: readonly PolicyResult[]): Record<string, { alloc100: number; alloc130: number }> {
  const out: Record<string, { alloc100: number; alloc130: number }> = {};
  for (const r of results) out[r.policy] = { alloc100: round2(valueAt(r, 100)), alloc130: round2(valueAt(r, 130)) };
  return out;
}

function fmt(v: number | undefined): string {
  return v === undefined || Number.isNaN(v) ? '-' : v.toFixed(2);
}

/** A plain-text table: our numbers beside the paper's where the policy exists there. */
export function formatTable(results: readonly PolicyResult[], published: readonly PublishedRow[], workload: string): string {
  const paper = (name: string): PublishedRow | undefined => published.find((row) => row.workload === workload && row.policy === name);
  const rows: string[][] = [['policy', 'seeds', 'alloc@100%', 'alloc@130%', 'sd@130%', 'paper policy', 'paper@100%', 'paper@130%', 'Δ@130%', 's/seed']];
  for (const r of results) {
    const paperName = PAPER_POLICY[r.policy];
    const p = paperName === undefined ? undefined : paper(paperName);
    const a130 = valueAt(r, 130);
    rows.push([
      r.policy,
      String(r.seeds),
      fmt(valueAt(r, 100)),
      fmt(a130),
      r.sd130 === undefined || Number.isNaN(r.sd130) ? '-' : r.sd130.toFixed(2),
      paperName ?? '',
      fmt(p?.alloc100),
      fmt(p?.alloc130),
      p === undefined ? '' : (a130 - p.alloc130 >= 0 ? '+' : '') + (a130 - p.alloc130).toFixed(2),
      r.secondsPerSeed.toFixed(1),
    ]);
  }
  for (const name of ['BestFit', 'FGD']) {
    const p = paper(name);
    if (p) rows.push([`(paper ${name})`, '10', '', '', '', name, fmt(p.alloc100), fmt(p.alloc130), '', '']);
  }
  return alignColumns(rows);
}

/**
 * What each design choice is worth: each ablation against `extender` (the
 * shipped profile on the deployed path), as the mean of the per-seed
 * differences at 130 % (every policy sees the same arrivals for a seed, so
 * pairing removes most of the seed-to-seed spread) ± its standard error.
 */
/** One workload's results for the summary table. */
export interface WorkloadResults {
  readonly workload: string;
  readonly results: readonly PolicyResult[];
  readonly published: readonly PublishedRow[];
}

/** The README's table: allocation at 130 % per policy and workload, beside the paper's; the shipped profile (extender) in bold. */
export function formatSummaryMarkdown(done: readonly WorkloadResults[], seeds: number): string {
  const header = ['policy', ...done.flatMap((d) => [d.workload, 'paper'])];
  const policies = done[0]?.results.map((r) => r.policy) ?? [];
  const lines = [
    `GPU allocation (%) at 130 % arrived workload, mean of ${seeds} seeds, beside the paper's mean of 10:`,
    '',
    `| ${header.join(' | ')} |`,
    `|---|${done.map(() => '---:|---:|').join('')}`,
  ];
  for (const policy of policies) {
    const shipped = policy === 'extender';
    const cells = done.flatMap((d) => {
      const result = d.results.find((r) => r.policy === policy);
      const paperName = PAPER_POLICY[policy];
      const paper = paperName === undefined ? undefined : d.published.find((row) => row.workload === d.workload && row.policy === paperName);
      const ours = result === undefined ? '' : fmt(valueAt(result, 130));
      return [shipped && ours !== '' ? `**${ours}**` : ours, fmt(paper?.alloc130)];
    });
    lines.push(`| ${shipped ? `**${policy}**` : policy} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function formatAblationTable(results: readonly PolicyResult[], ablations: Readonly<Record<string, string>>): string {
  const shipped = results.find((r) => r.policy === 'extender');
  const rows: string[][] = [['ablation', 'what it undoes', 'alloc@130%', 'Δ vs extender (paired, ± se)']];
  if (shipped !== undefined) rows.push(['extender', 'nothing: the shipped default profile on the deployed path', fmt(valueAt(shipped, 130)), '']);
  for (const r of results) {
    const change = ablations[r.policy];
    if (change === undefined) continue;
    rows.push([r.policy, change, fmt(valueAt(r, 130)), shipped === undefined ? '' : pairedDifference(r.at130BySeed ?? [], shipped.at130BySeed ?? [])]);
  }
  return alignColumns(rows);
}

/** Mean of a[i] − b[i] ± its standard error, e.g. "−0.42 ± 0.05"; '-' when the seeds do not pair up. */
export function pairedDifference(a: readonly number[], b: readonly number[]): string {
  if (a.length === 0 || a.length !== b.length) return '-';
  const diffs = a.map((v, i) => v - (b[i] as number));
  const mean = diffs.reduce((sum, d) => sum + d, 0) / diffs.length;
  const sd = sampleSd(diffs);
  const se = Number.isNaN(sd) ? '' : ` ± ${(sd / Math.sqrt(diffs.length)).toFixed(2)}`;
  return `${mean >= 0 ? '+' : ''}${mean.toFixed(2)}${se}`;
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2'];

const escapeXml = (s: string): string => s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);

/** SVG line plot of allocation (y, %) against arrived workload (x, % of GPU capacity). */
/** A published value to mark on the plot: the paper's policy and its allocation at 100 % and 130 % arrived. */
export interface PublishedMark {
  readonly policy: string;
  readonly at100: number;
  readonly at130: number;
}

/**
 * The allocation curves from 80 % arrived on, over 85..100 % allocation, where
 * the policies differ (below, every policy places everything), with the
 * paper's published values marked at 100 % and 130 %.
 */
export function renderSvg(results: readonly PolicyResult[], title: string, maxPercent: number, marks: readonly PublishedMark[] = []): string {
  const width = 760;
  const height = 460;
  const m = { left: 60, right: 150, top: 40, bottom: 50 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  // Below ~85 % every policy places everything (allocation = arrivals): show where they differ.
  const yMin = 85;
  const xMin = 80;
  const x = (p: number): number => m.left + ((p - xMin) / (maxPercent - xMin)) * plotW;
  const y = (v: number): number => m.top + plotH - ((Math.max(v, yMin) - yMin) / (100 - yMin)) * plotH;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${m.left}" y="22" font-size="14">${escapeXml(title)}</text>`,
  ];
  for (let p = xMin; p <= maxPercent; p += 10) {
    parts.push(`<line x1="${x(p)}" y1="${m.top}" x2="${x(p)}" y2="${m.top + plotH}" stroke="#eee"/>`);
    parts.push(`<text x="${x(p)}" y="${m.top + plotH + 16}" text-anchor="middle">${p}</text>`);
  }
  for (let v = yMin; v <= 100; v += 5) {
    parts.push(`<line x1="${m.left}" y1="${y(v)}" x2="${m.left + plotW}" y2="${y(v)}" stroke="#eee"/>`);
    parts.push(`<text x="${m.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  parts.push(`<line x1="${m.left}" y1="${y(yMin)}" x2="${x(maxPercent)}" y2="${y(yMin)}" stroke="black"/>`);
  parts.push(`<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${y(yMin)}" stroke="black"/>`);
  parts.push(`<line x1="${x(xMin)}" y1="${y(yMin)}" x2="${x(100)}" y2="${y(100)}" stroke="#999" stroke-dasharray="4 4"/>`);
  parts.push(`<text x="${m.left + plotW / 2}" y="${height - 10}" text-anchor="middle">arrived GPU requests (% of cluster GPU capacity)</text>`);
  parts.push(`<text transform="translate(16 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">GPU allocation (%)</text>`);
  results.forEach((r, i) => {
    const color = PALETTE[i % PALETTE.length] ?? 'black';
    const points: string[] = [];
    r.curve.forEach((v, p) => {
      if (!Number.isNaN(v) && p >= xMin && p <= maxPercent) points.push(`${x(p).toFixed(1)},${y(v).toFixed(1)}`);
    });
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8" points="${points.join(' ')}"/>`);
    const ly = m.top + 10 + i * 18;
    parts.push(`<line x1="${m.left + plotW + 12}" y1="${ly}" x2="${m.left + plotW + 32}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${m.left + plotW + 38}" y="${ly + 4}">${escapeXml(r.policy)} ${fmt(valueAt(r, maxPercent))}</text>`);
  });
  marks.forEach((mark, i) => {
    for (const [at, value] of [[100, mark.at100], [130, mark.at130]] as const) {
      if (at > maxPercent) continue;
      parts.push(`<path d="M${(x(at) - 5).toFixed(1)},${y(value).toFixed(1)} l10,0 M${x(at).toFixed(1)},${(y(value) - 5).toFixed(1)} l0,10" stroke="black" stroke-width="1.5"/>`);
      if (at === maxPercent) parts.push(`<text x="${(x(at) - 8).toFixed(1)}" y="${(y(value) - 6).toFixed(1)}" font-size="10" text-anchor="end">${escapeXml(`paper ${mark.policy}`)}</text>`);
    }
    const ly = m.top + 10 + (results.length + i) * 18;
    parts.push(`<path d="M${m.left + plotW + 17},${ly} l10,0 M${m.left + plotW + 22},${ly - 5} l0,10" stroke="black" stroke-width="1.5"/>`);
    parts.push(`<text x="${m.left + plotW + 38}" y="${ly + 4}">paper ${escapeXml(mark.policy)} ${fmt(mark.at130)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
