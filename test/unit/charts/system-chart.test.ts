import { describe, expect, it } from 'vitest';
import { renderSystemChart } from '../../../charts/system-chart';
import type { SystemFigures } from '../../../charts/system-figures';
import { parseSvg, svgTexts, textsPastRightEdge } from './svg-document';

const figures: SystemFigures = {
  coldFirstAnswer: [
    { nodes: 1000, pods: 10000, vcpu: 1, coldMs: 588, httpTimeoutMs: 5000, measured: '2026-12-01' },
    { nodes: 5000, pods: 50000, vcpu: 1, coldMs: 2075, httpTimeoutMs: 5000, measured: '2026-12-03' },
  ],
  throughput: [{ nodes: 100, pods: 400, clientLimit: 'as deployed', qps: 50, withoutPodsPerSecond: 67, withPodsPerSecond: 66, measured: '2026-12-03' }],
};

describe('system chart', () => {
  it('draws the cold first answer against cluster size beside its guard, and throughput with and without the extender', async () => {
    const doc = parseSvg(await renderSystemChart(figures));
    const texts = svgTexts(doc);
    expect(texts).toEqual(
      expect.arrayContaining([
        'cold first answer at 1 vCPU',
        '588 ms',
        '2075 ms',
        'guard: half of httpTimeout (2500 ms)',
        'with the extender, client limit as deployed',
        'without, client limit as deployed',
      ]),
    );
    // One line for the cold start, one per throughput series.
    expect(doc.querySelectorAll('g.mark-line > path')).toHaveLength(3);
    expect(textsPastRightEdge(doc)).toEqual([]);
  });
});
