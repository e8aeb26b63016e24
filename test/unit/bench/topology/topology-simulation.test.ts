import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../../../bench/topology/topology-cluster';
import { createTopologyProfile } from '../../../../bench/topology/topology-policies';
import { podOf, simulateTopology, workloadShapes } from '../../../../bench/topology/topology-simulation';
import type { BenchJob } from '../../../../bench/topology/topology-workload';

// Block "small" of 2 nodes listed first (so ties would pick it), block "fit" of 4.
const cluster: ClusterNode[] = [
  ...[0, 1].map((i) => ({ name: `small-${i}`, zone: 'z', layers: ['t', 'm', 'small'] })),
  ...[0, 1, 2, 3].map((i) => ({ name: `fit-${i}`, zone: 'z', layers: ['t', 'm', 'fit'] })),
];
const job = (id: number, arrival: number, pods: number, duration = 100): BenchJob => ({ id, kind: pods > 1 ? 'multi-node' : 'single-node', arrival, duration, pods, gpus: 8, gpuMilli: 1000 });

describe('simulateTopology', () => {
  it('gives multi-node pods their job size and a selector for their job only', () => {
    const pod = podOf(job(7, 0, 4), 2);
    expect(pod.groupSize).toBe(4);
    expect(pod.labels).toEqual({ job: '7' });
    expect(podOf(job(8, 0, 1), 0).groupSize).toBeUndefined();
  });

  it('places a 4-node job in the 4-node block with our profile, and records that one block could hold it', () => {
    const jobs = [job(0, 0, 4)];
    const run = simulateTopology(cluster, jobs, createTopologyProfile('ours', workloadShapes(jobs)));
    expect(run.outcomes[0]?.nodes.slice().sort()).toEqual(['fit-0', 'fit-1', 'fit-2', 'fit-3']);
    expect(run.outcomes[0]?.fitsOneBlock).toBe(true);
    // Fragmentation alone takes the first nodes it ties on, across both blocks.
    const fgd = simulateTopology(cluster, jobs, createTopologyProfile('fgd', workloadShapes(jobs)));
    expect(fgd.outcomes[0]?.nodes).toContain('small-0');
  });

  it('admits a job whole or not at all, and starts a waiting job when another ends', () => {
    const jobs = [job(0, 0, 5, 50), job(1, 10, 3, 50), job(2, 20, 1, 50)];
    const run = simulateTopology(cluster, jobs, createTopologyProfile('ours', workloadShapes(jobs)));
    const [first, second, third] = run.outcomes;
    expect(first?.start).toBe(0);
    // 3 nodes do not fit next to the 5-node job: nothing of it is placed until that job ends at 50.
    expect(second?.start).toBe(50);
    expect(second?.nodes).toHaveLength(3);
    // The single pod behind it fits at once (no head-of-line blocking).
    expect(third?.start).toBe(20);
  });

  it('never starts a job bigger than the cluster and reports allocation over the arrival window', () => {
    const jobs = [job(0, 0, 7), job(1, 100, 6, 1000)];
    const run = simulateTopology(cluster, jobs, createTopologyProfile('ours', workloadShapes(jobs)));
    expect(run.outcomes[0]?.start).toBeUndefined();
    expect(run.outcomes[1]?.start).toBe(100);
    // Window 10..100: nothing allocated until the last arrival.
    expect(run.allocation).toBe(0);
  });
});
