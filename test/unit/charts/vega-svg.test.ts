import { describe, expect, it } from 'vitest';
import { CHART_CONFIG, renderChartSvg, withChartConfig } from '../../../charts/vega-svg';
import { parseSvg, svgTexts, textsPastRightEdge } from './svg-document';

describe('renderChartSvg', () => {
  it('renders a Vega-Lite spec offline to one well-formed SVG, text in a generic font family', async () => {
    const svg = await renderChartSvg({
      data: { values: [{ k: 'a', v: 1 }, { k: 'b', v: 3 }] },
      mark: 'bar',
      encoding: { x: { field: 'k', type: 'nominal' }, y: { field: 'v', type: 'quantitative' }, color: { field: 'k', type: 'nominal', title: 'a legend title longer than the plot is wide, 93.08' } },
      width: 60,
      height: 60,
    });
    const doc = parseSvg(svg);
    expect(doc.querySelectorAll('path, rect').length).toBeGreaterThan(2);
    const fonts = new Set([...doc.querySelectorAll('text')].map((t) => t.getAttribute('font-family')));
    expect([...fonts]).toEqual(['sans-serif']);
    expect(svgTexts(doc)).toContain('a legend title longer than the plot is wide, 93.08');
    expect(textsPastRightEdge(doc)).toEqual([]);
    // The check sees a label cut at the edge, as the hand-drawn trace chart's was.
    expect(textsPastRightEdge(parseSvg('<svg xmlns="http://www.w3.org/2000/svg" width="100"><g transform="translate(20,0)"><text x="60" font-size="12">paper BestFit 93.08</text></g></svg>'))).toEqual(['paper BestFit 93.08']);
  });

  it('loads nothing: a spec naming a URL fails instead of reaching out', async () => {
    await expect(renderChartSvg({ data: { url: 'http://127.0.0.1:9/data.json' }, mark: 'point' })).rejects.toThrow(/refused http:\/\/127\.0\.0\.1:9\/data\.json/);
  });

  it("keeps a spec's own config over the shared look", () => {
    const spec = withChartConfig({ data: { values: [] }, mark: 'point', config: { font: 'serif' } });
    expect(spec.config).toMatchObject({ font: 'serif', background: CHART_CONFIG.background });
  });
});
