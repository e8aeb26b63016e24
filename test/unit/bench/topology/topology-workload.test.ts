import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../bench/trace/seeded-rng';
import { generateWorkload } from '../../../../bench/topology/topology-workload';

describe('generateWorkload', () => {
  const jobs = generateWorkload({ jobs: 3000, totalGpus: 2400, load: 0.95 }, createRng(3));

  it('mixes multi-node jobs of 2–32 whole nodes, single-node and fractional pods', () => {
    const multi = jobs.filter((j) => j.kind === 'multi-node');
    expect(multi.every((j) => j.pods >= 2 && j.pods <= 32 && j.gpus === 8 && j.gpuMilli === 1000)).toBe(true);
    expect(new Set(multi.map((j) => j.pods)).size).toBeGreaterThan(10);
    expect(jobs.filter((j) => j.kind === 'single-node').every((j) => j.pods === 1 && [1, 2, 4, 8].includes(j.gpus))).toBe(true);
    expect(jobs.filter((j) => j.kind === 'fractional').every((j) => j.pods === 1 && [250, 500].includes(j.gpuMilli))).toBe(true);
    expect(multi.length / jobs.length).toBeGreaterThan(0.08);
    expect(multi.length / jobs.length).toBeLessThan(0.16);
  });

  it('arrives in order at a rate that offers the asked load', () => {
    for (let i = 1; i < jobs.length; i++) expect(jobs[i]?.arrival ?? 0).toBeGreaterThanOrEqual(jobs[i - 1]?.arrival ?? 0);
    const gpuMinutes = jobs.reduce((s, j) => s + (j.pods * j.gpus * j.gpuMilli * j.duration) / 1000, 0);
    const span = jobs[jobs.length - 1]?.arrival ?? 1;
    expect(gpuMinutes / (2400 * span)).toBeGreaterThan(0.85);
    expect(gpuMinutes / (2400 * span)).toBeLessThan(1.05);
  });

  it('is the same for the same seed', () => {
    expect(generateWorkload({ jobs: 3000, totalGpus: 2400, load: 0.95 }, createRng(3))).toEqual(jobs);
  });
});
