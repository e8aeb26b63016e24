/** The one table `npm run bench` prints (Markdown, so the README can carry it as is). */

export interface BenchRow {
  readonly section: string;
  readonly measurement: string;
  readonly value: string;
  /** The target, when the row has one. */
  readonly target?: string;
  /** Whether the value meets the target; undefined when there is none. */
  readonly ok?: boolean;
}

const HEADERS = ['Section', 'Measurement', 'Value', 'Target', 'Met'] as const;

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export function verdict(ok: boolean | undefined): string {
  if (ok === undefined) return '';
  return ok ? 'yes' : 'NO';
}

/** A Markdown table padded to aligned columns. */
export function formatTable(rows: readonly BenchRow[]): string {
  const cells = rows.map((r) => [r.section, r.measurement, r.value, r.target ?? '', verdict(r.ok)].map(cell));
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (values: readonly string[]) => `| ${values.map((v, i) => v.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(HEADERS), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/** 1234.5 → "1.23 ms"-style figures with three significant digits. */
export function ms(value: number): string {
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ms`;
}

export function ratio(value: number): string {
  return `${value.toFixed(2)}×`;
}

export function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

export function mib(value: number): string {
  return `${value.toFixed(1)} MiB`;
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}
