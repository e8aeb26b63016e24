import { describe, expect, it } from 'vitest';
import { runSeed } from '../../../../bench/topology/topology-cli';

describe('runSeed', () => {
  it('is reproducible, and our profile keeps fitting jobs in one bottom block where Fragmentation alone spreads them', () => {
    const options = { jobs: 400, load: 0.95, policies: ['fgd', 'ours'] as const };
    const first = runSeed(3, options);
    expect(runSeed(3, options)).toEqual(first);
    const ours = first.get('ours');
    const fgd = first.get('fgd');
    expect(ours?.oneBlockPercent).toBe(100);
    expect(ours?.blocksPerJob ?? Number.NaN).toBeLessThan(fgd?.blocksPerJob ?? 0);
  });
});
