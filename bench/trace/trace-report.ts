import type { PublishedRow } from './published-results';
import { PAPER_POLICY } from './published-results';
import { alignColumns } from '../../simulator/placement-table';
import type { TraceResults } from '../../charts/trace-results';

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

/** What `npm run bench:trace` records of one workload (the trace chart's data): curves rounded to two decimals, NaN as null. */
export function toTraceResults(
  results: readonly PolicyResult[],
  published: readonly PublishedRow[],
  run: { readonly workload: string; readonly seeds: number; readonly tieBreak: string; readonly command: string; readonly measured: string },
): TraceResults {
  const percent = (v: number | undefined): number | null => (v === undefined || Number.isNaN(v) ? null : round2(v));
  return {
    ...run,
    policies: results.map((r) => ({
      policy: r.policy,
      alloc100: percent(valueAt(r, 100)),
      alloc130: percent(valueAt(r, 130)),
      sd130: percent(r.sd130),
      curve: r.curve.map(percent),
    })),
    published: published.filter((row) => row.workload === run.workload).map(({ policy, alloc100, alloc130 }) => ({ policy, alloc100, alloc130 })),
  };
}
