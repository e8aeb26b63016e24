import { describe, expect, it } from 'vitest';
import type { TopologyMetrics } from '../../../../bench/topology/topology-metrics';
import { formatTable, renderSvg, toJson } from '../../../../bench/topology/topology-report';

const metrics: TopologyMetrics = { oneBlockPercent: 97.5, blocksPerJob: 1.234, meanHops: 2.5, allocation: 93.456, pendingMinutes: 12.4, multiNodePendingMinutes: 40.6, neverStarted: 0 };

describe('topology report', () => {
  it('prints one markdown row per policy', () => {
    const table = formatTable([{ policy: 'ours', metrics }]);
    expect(table.split('\n')).toHaveLength(3);
    expect(table).toContain('| ours (default profile) | 97.5 % | 1.23 | 2.50 | 93.46 % | 12 min | 41 min |');
  });

  it('keys JSON by policy and draws a bar per policy and metric', () => {
    expect(toJson([{ policy: 'fgd', metrics }])).toEqual({ fgd: metrics });
    const svg = renderSvg([{ policy: 'fgd', metrics }, { policy: 'ours', metrics }], 'T & <x>');
    expect(svg.match(/<rect /g)).toHaveLength(2 * 4 + 2);
    expect(svg).toContain('T &amp; &lt;x&gt;');
  });
});
