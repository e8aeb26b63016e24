// The system chart: what the benchmark measured against cluster size, a
// cold extender's first answer (beside its guard, half of httpTimeout) and
// kube-scheduler's throughput with and without the extender.
import type { TopLevelSpec } from 'vega-lite';
import type { SystemFigures } from './system-figures';
import { renderChartSvg } from './vega-svg';

export function systemChartSpec(figures: SystemFigures, title = 'The pipeline against cluster size (npm run bench)'): TopLevelSpec {
  const cold = figures.coldFirstAnswer.map((c) => ({
    nodes: c.nodes,
    ms: c.coldMs,
    series: `cold first answer${c.vcpu === null ? '' : ` at ${c.vcpu} vCPU`}`,
    label: `${c.coldMs} ms`,
  }));
  const guards = [...new Set(figures.coldFirstAnswer.map((c) => c.httpTimeoutMs / 2))].map((ms) => ({ ms, label: `guard: half of httpTimeout (${ms} ms)` }));
  const throughput = figures.throughput.flatMap((t) => [
    { nodes: t.nodes, podsPerSecond: t.withPodsPerSecond, series: `with the extender, client limit ${t.clientLimit}` },
    { nodes: t.nodes, podsPerSecond: t.withoutPodsPerSecond, series: `without, client limit ${t.clientLimit}` },
  ]);
  const nodes = { field: 'nodes', type: 'quantitative' as const, title: 'GPU nodes in the cluster', scale: { zero: true } };
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, offset: 16 },
    hconcat: [
      {
        title: 'Cold extender container: first /filter (ms)',
        width: 300,
        height: 240,
        layer: [
          {
            data: { values: guards },
            mark: { type: 'rule', strokeDash: [4, 4], color: '#d62728' },
            encoding: { y: { field: 'ms', type: 'quantitative' } },
          },
          {
            data: { values: guards },
            mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: '#d62728', fontSize: 10 },
            encoding: { x: { datum: 0, type: 'quantitative' }, y: { field: 'ms', type: 'quantitative' }, text: { field: 'label' } },
          },
          {
            data: { values: cold },
            mark: { type: 'line', point: { size: 60, filled: true } },
            encoding: {
              x: nodes,
              y: { field: 'ms', type: 'quantitative', title: 'ms', scale: { zero: true } },
              color: { field: 'series', type: 'nominal', title: null, scale: { scheme: 'tableau10' }, legend: { orient: 'bottom', direction: 'vertical' } },
            },
          },
          {
            data: { values: cold },
            mark: { type: 'text', dy: -10, fontSize: 10 },
            encoding: { x: nodes, y: { field: 'ms', type: 'quantitative' }, text: { field: 'label' } },
          },
        ],
      },
      {
        title: 'kube-scheduler throughput (pods bound per second)',
        width: 300,
        height: 240,
        data: { values: throughput },
        layer: [
          {
            mark: { type: 'line', point: { size: 60, filled: true } },
            encoding: {
              x: nodes,
              y: { field: 'podsPerSecond', type: 'quantitative', title: 'pods/s', scale: { zero: true } },
              color: { field: 'series', type: 'nominal', title: null, scale: { scheme: 'set2' }, legend: { orient: 'bottom', direction: 'vertical' } },
            },
          },
        ],
      },
    ],
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
  };
  return spec;
}

export function renderSystemChart(figures: SystemFigures, title?: string): Promise<string> {
  return renderChartSvg(systemChartSpec(figures, title));
}
