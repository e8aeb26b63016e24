import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../../../bench/topology/topology-cluster';
import { meanMetrics, meanPairHops, measureRun } from '../../../../bench/topology/topology-metrics';
import type { BenchJob } from '../../../../bench/topology/topology-workload';

const node = (name: string, bottom: string): ClusterNode => ({ name, zone: 'z', layers: ['t', 'm', bottom] });
const cluster = [node('a1', 'a'), node('a2', 'a'), node('b1', 'b'), node('b2', 'b')];
const job = (id: number, pods: number, arrival = 0): BenchJob => ({ id, kind: pods > 1 ? 'multi-node' : 'single-node', arrival, duration: 1, pods, gpus: 8, gpuMilli: 1000 });

describe('measureRun', () => {
  it('counts fitting jobs in one block, blocks per job, hops and waits', () => {
    const metrics = measureRun(cluster, {
      allocation: 90,
      outcomes: [
        { job: job(0, 2), start: 0, nodes: ['a1', 'a2'], fitsOneBlock: true },
        { job: job(1, 2), start: 5, nodes: ['a1', 'b1'], fitsOneBlock: true },
        { job: job(2, 4), start: 5, nodes: ['a1', 'a2', 'b1', 'b2'], fitsOneBlock: false },
        { job: job(3, 1, 2), start: undefined, nodes: [], fitsOneBlock: false },
      ],
    });
    expect(metrics.oneBlockPercent).toBe(50);
    expect(metrics.blocksPerJob).toBeCloseTo(5 / 3);
    // Pairs: job 0 → 2; job 1 → 4; job 2 → (2 + 2 + 4 × 4) / 6.
    expect(metrics.meanHops).toBeCloseTo((2 + 4 + 20 / 6) / 3);
    // The job that never started waits until the last start (5).
    expect(metrics.pendingMinutes).toBeCloseTo((0 + 5 + 5 + 3) / 4);
    expect(metrics.multiNodePendingMinutes).toBeCloseTo(10 / 3);
    expect(metrics.neverStarted).toBe(1);
    expect(metrics.allocation).toBe(90);
  });

  it('means over seeds field by field', () => {
    const one = measureRun(cluster, { allocation: 80, outcomes: [] });
    const two = { ...one, allocation: 90 };
    expect(meanMetrics([one, two]).allocation).toBe(85);
    expect(meanPairHops([node('a1', 'a')])).toBe(0);
  });
});
