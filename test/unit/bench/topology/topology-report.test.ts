import { describe, expect, it } from 'vitest';
import type { TopologyMetrics } from '../../../../bench/topology/topology-metrics';
import { formatTable, toJson, toTopologyResults } from '../../../../bench/topology/topology-report';
import { TOPOLOGY_RESULTS_SCHEMA } from '../../../../charts/topology-results';

const metrics: TopologyMetrics = { oneBlockPercent: 97.5, blocksPerJob: 1.234, meanHops: 2.5, allocation: 93.456, pendingMinutes: 12.4, multiNodePendingMinutes: 40.6, neverStarted: 0 };

describe('topology report', () => {
  it('prints one markdown row per policy', () => {
    const table = formatTable([{ policy: 'ours', metrics }]);
    expect(table.split('\n')).toHaveLength(3);
    expect(table).toContain('| ours (default profile) | 97.5 % | 1.23 | 2.50 | 93.46 % | 12 min | 41 min |');
  });

  it('keys JSON by policy', () => {
    expect(toJson([{ policy: 'fgd', metrics }])).toEqual({ fgd: metrics });
  });

  it('records each policy with its label and metrics, as the topology chart reads them', () => {
    const recorded = toTopologyResults([{ policy: 'fgd', metrics }, { policy: 'ours', metrics }], { seeds: 5, jobs: 2000, load: 0.95, command: 'npm run bench:topology', measured: '2026-12-05' });
    expect(TOPOLOGY_RESULTS_SCHEMA.parse(recorded)).toEqual(recorded);
    expect(recorded.policies.map((p) => p.label)).toEqual(['Fragmentation alone', 'ours (default profile)']);
    expect(recorded.policies[1]?.metrics).toEqual(metrics);
  });
});
