import { describe, expect, it } from 'vitest';
import { renderTopologyChart } from '../../../charts/topology-chart';
import type { TopologyResults } from '../../../charts/topology-results';
import { parseSvg, svgTexts, textsPastRightEdge } from './svg-document';

const metrics = (oneBlockPercent: number, allocation: number) => ({ oneBlockPercent, blocksPerJob: 2.11, meanHops: 3.15, allocation, pendingMinutes: 2, multiNodePendingMinutes: 14, neverStarted: 0 });

const results: TopologyResults = {
  seeds: 5,
  jobs: 2000,
  load: 0.95,
  command: 'npm run bench:topology',
  measured: '2026-12-05',
  policies: [
    { policy: 'fgd', label: 'FGD alone', metrics: metrics(1.8, 89.91) },
    { policy: 'ours', label: 'ours (default profile)', metrics: metrics(100, 89.9) },
  ],
};

describe('topology chart', () => {
  it('draws a bar per policy in each of the four panels, each labelled with its value, and a legend of the policies', async () => {
    const doc = parseSvg(await renderTopologyChart(results));
    expect(doc.querySelectorAll('g.mark-rect > path')).toHaveLength(2 * 4);
    const texts = svgTexts(doc);
    expect(texts).toEqual(expect.arrayContaining(['FGD alone', 'ours (default profile)', '100.0', '1.8', '89.91', '89.90', 'mean hops between ranks']));
    expect(texts).toContain('Topology benchmark: 5 seeds, 2000 jobs each, load 0.95');
    expect(textsPastRightEdge(doc)).toEqual([]);
  });
});
