// The trace chart: GPU allocation against arrived workload on the openb
// trace, one line per policy, the paper's published values marked. It shows
// the region where the policies differ (from 80 % arrived; below 85 %
// allocation every policy places everything).
import type { TopLevelSpec } from 'vega-lite';
import type { TraceResults } from './trace-results';
import { renderChartSvg } from './vega-svg';

/** How a policy is named on a chart; a name not here is shown as it is. */
export const TRACE_POLICY_LABELS: Readonly<Record<string, string>> = {
  extender: 'ours (deployed path)',
  default: 'ours (continuous)',
  fgd: 'FGD',
  bestfit: 'BestFit',
  packing: 'GpuPacking',
  spread: 'kube-scheduler default (spread)',
  random: 'Random',
};

/** The policy drawn bold: the shipped profile as deployed. */
const HEADLINE_POLICY = 'extender';
const FIRST_ARRIVED = 80;
const LOWEST_ALLOCATION = 85;

export interface TraceChartOptions {
  /** Policies to draw, in the results' order; default all of them. */
  readonly policies?: readonly string[];
  /** The paper's policies to mark; default all it published for the workload. */
  readonly paper?: readonly string[];
  readonly title?: string;
}

const fixed = (value: number | null): string => (value === null ? '-' : value.toFixed(2));

/** One legend entry per policy: its name and its allocation at the last arrived percent. */
export function policyLegendLabel(policy: string, alloc130: number | null): string {
  return `${TRACE_POLICY_LABELS[policy] ?? policy} ${fixed(alloc130)}`;
}

interface CurvePoint {
  readonly series: string;
  readonly headline: boolean;
  readonly arrived: number;
  readonly allocation: number;
}

interface PaperPoint {
  readonly paper: string;
  readonly arrived: number;
  readonly allocation: number;
}

export function traceChartSpec(results: TraceResults, options: TraceChartOptions = {}): TopLevelSpec {
  const shown = results.policies.filter((p) => options.policies === undefined || options.policies.includes(p.policy));
  if (shown.length === 0) throw new Error(`none of the policies ${options.policies?.join(', ') ?? ''} is in the ${results.workload} results`);
  const lastArrived = Math.max(...shown.map((p) => p.curve.length - 1));
  // Legend order: best allocation at the end first, so the legend reads as a ranking.
  const ranked = [...shown].sort((a, b) => (b.alloc130 ?? -1) - (a.alloc130 ?? -1));
  const seriesOrder = ranked.map((p) => policyLegendLabel(p.policy, p.alloc130));
  const curves: CurvePoint[] = shown.flatMap((p) =>
    p.curve.flatMap((allocation, arrived) =>
      allocation === null || arrived < FIRST_ARRIVED ? [] : [{ series: policyLegendLabel(p.policy, p.alloc130), headline: p.policy === HEADLINE_POLICY, arrived, allocation }],
    ),
  );
  const paper: PaperPoint[] = results.published
    .filter((row) => options.paper === undefined || options.paper.includes(row.policy))
    .flatMap((row) => {
    const label = `paper ${row.policy} ${row.alloc130.toFixed(2)}`;
    return [
      { paper: label, arrived: 100, allocation: row.alloc100 },
      { paper: label, arrived: 130, allocation: row.alloc130 },
    ].filter((point) => point.arrived <= lastArrived);
  });
  const x = { field: 'arrived', type: 'quantitative' as const, title: 'arrived GPU requests (% of cluster GPU capacity)', scale: { domain: [FIRST_ARRIVED, lastArrived], nice: false } };
  const y = { field: 'allocation', type: 'quantitative' as const, title: 'GPU allocation (%)', scale: { domain: [LOWEST_ALLOCATION, 100], nice: false } };
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: options.title ?? `GPU allocation vs arrived workload: ${results.workload}, ${results.seeds} seeds`,
    width: 520,
    height: 320,
    layer: [
      {
        // Every pod placed: allocation equals arrivals.
        data: { values: [{ arrived: LOWEST_ALLOCATION, allocation: LOWEST_ALLOCATION, arrived2: 100, allocation2: 100 }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: '#999' },
        encoding: { x, y, x2: { field: 'arrived2' }, y2: { field: 'allocation2' } },
      },
      {
        data: { values: curves },
        mark: { type: 'line', clip: true, interpolate: 'linear' },
        encoding: {
          x,
          y,
          color: { field: 'series', type: 'nominal', title: 'policy: allocation at the end (%)', sort: seriesOrder, scale: { scheme: 'tableau10' } },
          strokeWidth: { condition: { test: 'datum.headline', value: 3 }, value: 1.6 },
        },
      },
      {
        data: { values: paper },
        mark: { type: 'point', filled: true, size: 90, color: 'black' },
        encoding: {
          x,
          y,
          shape: { field: 'paper', type: 'nominal', title: 'the paper\'s published values', scale: { range: ['cross', 'diamond', 'triangle-up', 'square'] } },
        },
      },
    ],
    resolve: { legend: { color: 'independent', shape: 'independent' } },
  };
  return spec;
}

export function renderTraceChart(results: TraceResults, options: TraceChartOptions = {}): Promise<string> {
  return renderChartSvg(traceChartSpec(results, options));
}
