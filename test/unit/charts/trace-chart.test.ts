import { describe, expect, it } from 'vitest';
import { policyLegendLabel, renderTraceChart, traceChartSpec } from '../../../charts/trace-chart';
import type { TraceResults } from '../../../charts/trace-results';
import { parseSvg, svgTexts, textsPastRightEdge } from './svg-document';

/** Allocation equal to arrivals up to 85 %, then rising linearly to `at100` and `at130`. */
const curve = (at100: number, at130: number): (number | null)[] =>
  Array.from({ length: 131 }, (_, p) => (p <= 85 ? p : p <= 100 ? 85 + ((at100 - 85) * (p - 85)) / 15 : at100 + ((at130 - at100) * (p - 100)) / 30));

const results: TraceResults = {
  workload: 'openb_pod_list_default',
  seeds: 10,
  tieBreak: 'order',
  command: 'npm run bench:trace -- --pods default',
  measured: '2026-12-05',
  policies: [
    { policy: 'bestfit', alloc100: 93.04, alloc130: 93.24, sd130: 0.24, curve: curve(93.04, 93.24) },
    { policy: 'extender', alloc100: 95.81, alloc130: 95.9, sd130: 0.05, curve: curve(95.81, 95.9) },
    { policy: 'fgd', alloc100: 95.28, alloc130: 95.42, sd130: 0.11, curve: curve(95.28, 95.42) },
    { policy: 'spread', alloc100: 93.05, alloc130: 94.03, sd130: 0.12, curve: [...curve(93.05, 94.03).slice(0, 120), null] },
  ],
  published: [
    { policy: 'BestFit', alloc100: 92.86, alloc130: 93.08 },
    { policy: 'FGD', alloc100: 95.23, alloc130: 95.39 },
    { policy: 'Random', alloc100: 86.3, alloc130: 87.47 },
  ],
};

describe('trace chart', () => {
  it('draws one line per policy, each named in the legend with its allocation at the end', async () => {
    const doc = parseSvg(await renderTraceChart(results, { paper: ['BestFit', 'FGD'] }));
    expect(doc.querySelectorAll('g.mark-line > path')).toHaveLength(4);
    const texts = svgTexts(doc);
    for (const label of ['ours (deployed path) 95.90', 'FGD 95.42', 'BestFit 93.24', 'kube-scheduler default (spread) 94.03']) expect(texts).toContain(label);
    expect(texts).toContain('GPU allocation vs arrived workload: openb_pod_list_default, 10 seeds');
  });

  it("marks the paper's values asked for at 100 % and 130 % arrived, each named with its value at 130 %", async () => {
    const doc = parseSvg(await renderTraceChart(results, { paper: ['BestFit', 'FGD'] }));
    expect(doc.querySelectorAll('g.mark-symbol.layer_2_marks > path')).toHaveLength(4);
    const texts = svgTexts(doc);
    expect(texts).toEqual(expect.arrayContaining(['paper BestFit 93.08', 'paper FGD 95.39']));
    expect(texts.some((t) => t.includes('Random'))).toBe(false);
  });

  it('fits its legends: no label passes the right edge (the hand-drawn chart cut "paper BestFit 93.08")', async () => {
    expect(textsPastRightEdge(parseSvg(await renderTraceChart(results)))).toEqual([]);
  });

  it('ranks the legend by allocation at the end, and draws only the policies asked for', () => {
    const spec = JSON.stringify(traceChartSpec(results, { policies: ['bestfit', 'extender'] }));
    expect(spec).toContain(JSON.stringify([policyLegendLabel('extender', 95.9), policyLegendLabel('bestfit', 93.24)]));
    expect(spec).not.toContain('FGD 95.42');
    expect(() => traceChartSpec(results, { policies: ['packing'] })).toThrow(/none of the policies packing/);
  });

  it('leaves out the arrived percents before 80 and those no seed reached', () => {
    const spec = traceChartSpec(results, { policies: ['spread'] });
    const layers = 'layer' in spec ? spec.layer : [];
    const curveLayer = layers[1] as { data: { values: { arrived: number }[] } };
    const arrived = curveLayer.data.values.map((v) => v.arrived);
    expect(Math.min(...arrived)).toBe(80);
    expect(Math.max(...arrived)).toBe(119);
  });
});
