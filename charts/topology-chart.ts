// The topology chart: one panel per placement metric, one bar per policy,
// each bar labelled with its value.
import type { TopLevelSpec } from 'vega-lite';
import type { TopologyResults } from './topology-results';
import { renderChartSvg } from './vega-svg';

type Metrics = TopologyResults['policies'][number]['metrics'];

/** The panels, in order: what each shows and how its value is written. */
const PANELS: readonly { readonly title: string; readonly value: (m: Metrics) => number; readonly digits: number }[] = [
  { title: 'fitting jobs in one bottom block (%)', value: (m) => m.oneBlockPercent, digits: 1 },
  { title: 'bottom blocks per job', value: (m) => m.blocksPerJob, digits: 2 },
  { title: 'mean hops between ranks', value: (m) => m.meanHops, digits: 2 },
  { title: 'GPU allocation (%)', value: (m) => m.allocation, digits: 2 },
];

export function topologyChartSpec(results: TopologyResults, title?: string): TopLevelSpec {
  const policyOrder = results.policies.map((p) => p.label);
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title ?? `Topology benchmark: ${results.seeds} seeds, ${results.jobs} jobs each, load ${results.load}`, offset: 16 },
    hconcat: PANELS.map((panel) => ({
      title: panel.title,
      width: 170,
      height: 200,
      data: { values: results.policies.map((p) => ({ policy: p.label, value: panel.value(p.metrics), text: panel.value(p.metrics).toFixed(panel.digits) })) },
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            x: { field: 'policy', type: 'nominal', sort: policyOrder, axis: null },
            y: { field: 'value', type: 'quantitative', title: null },
            color: { field: 'policy', type: 'nominal', sort: policyOrder, title: 'policy' },
          },
        },
        {
          mark: { type: 'text', dy: -6, fontSize: 10 },
          encoding: { x: { field: 'policy', type: 'nominal', sort: policyOrder }, y: { field: 'value', type: 'quantitative' }, text: { field: 'text' } },
        },
      ],
    })),
    resolve: { scale: { y: 'independent' } },
  };
  return spec;
}

export function renderTopologyChart(results: TopologyResults, title?: string): Promise<string> {
  return renderChartSvg(topologyChartSpec(results, title));
}
