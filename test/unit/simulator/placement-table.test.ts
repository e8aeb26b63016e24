import { describe, expect, it } from 'vitest';
import { explanationLines } from '../../../simulator/placement-table';

describe('explanationLines', () => {
  const best = { node: 'a10g-a', total: 52.5, plugins: { GpuScore: 50, Fragmentation: 53.12 } };
  it('calls equal totals a tie and says who breaks it', () => {
    const lines = explanationLines({ pod: 'ml/p', node: 'a10g-a', score: 52.5, devices: [0], explanation: { best, runnerUp: { ...best, node: 'a10g-b' }, margin: 0, tie: true } });
    expect(lines).toEqual([
      '  ml/p → a10g-a',
      '    chosen a10g-a: total 52.50 (GpuScore 50.00, Fragmentation 53.12)',
      '    runner-up a10g-b: total 52.50 (GpuScore 50.00, Fragmentation 53.12)',
      '    tie: equal totals; the earlier node in the input wins (kube-scheduler picks at random among equal totals)',
    ]);
  });

  it('gives the margin, or says the node was the only one that fits; nothing without an explanation', () => {
    const runnerUp = { node: 'a10g-b', total: 50.25, plugins: { GpuScore: 50, Fragmentation: 50.33 } };
    expect(explanationLines({ pod: 'ml/p', node: 'a10g-a', score: 52.5, devices: [], explanation: { best, runnerUp, margin: 2.25, tie: false } }).at(-1)).toBe('    margin 2.25 points');
    expect(explanationLines({ pod: 'ml/p', node: 'a10g-a', score: 52.5, devices: [], explanation: { best, margin: 0, tie: false } }).at(-1)).toBe('    the only node that fits');
    expect(explanationLines({ pod: 'ml/p', node: 'a10g-a', score: 52.5, devices: [] })).toEqual([]);
  });
});
