/**
 * The paper's published allocation ratios (published_alloc_summary.csv in
 * the data directory) and how our policy names map onto the paper's.
 */

export interface PublishedRow {
  readonly workload: string;
  readonly policy: string;
  readonly alloc100: number;
  readonly alloc130: number;
}

/** Our policy → the paper's policy it reproduces (only where one exists). */
export const PAPER_POLICY: Readonly<Record<string, string>> = {
  random: 'Random',
  bestfit: 'BestFit',
  fgd: 'FGD',
  packing: 'GpuPacking',
};

export function parsePublishedCsv(text: string): PublishedRow[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = (lines[0] ?? '').split(',').map((h) => h.trim());
  const idx = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`published results: missing column "${name}"`);
    return i;
  };
  const w = idx('workload');
  const p = idx('policy');
  const a100 = idx('alloc_pct_at_arrived_100');
  const a130 = idx('alloc_pct_at_arrived_130');
  return lines.slice(1).map((line) => {
    const cells = line.split(',');
    return {
      workload: cells[w] ?? '',
      policy: cells[p] ?? '',
      alloc100: Number(cells[a100]),
      alloc130: Number(cells[a130]),
    };
  });
}

/** `openb_pod_list_default.csv` → `openb_pod_list_default` (the CSV's workload key). */
export function workloadKey(podsPath: string): string {
  const base = podsPath.split(/[\\/]/).pop() ?? podsPath;
  return base.replace(/\.csv$/i, '');
}
