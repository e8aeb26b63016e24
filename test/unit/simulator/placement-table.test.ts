import { describe, expect, it } from 'vitest';
import { explanationLines, STRANDED_MEANING, unschedulableLines } from '../../../simulator/placement-table';

describe('explanationLines', () => {
  const best = { node: 'a10g-a', total: 500, points: { TaintToleration: 300, extender: 200 }, extenderPlugins: { GpuScore: 50, Fragmentation: 53.12 } };
  const placed = { pod: 'ml/p', node: 'a10g-a', score: 500, devices: [0], tiedWith: [] };
  it('calls equal totals a tie and says kube-scheduler picks at random', () => {
    const lines = explanationLines({ ...placed, tiedWith: ['a10g-b'], explanation: { best, runnerUp: { ...best, node: 'a10g-b' }, margin: 0 } });
    expect(lines).toEqual([
      '  ml/p → a10g-a',
      "    chosen a10g-a: total 500 (TaintToleration 300, extender 200; the extender's plugins 0..100: GpuScore 50.00, Fragmentation 53.12)",
      "    runner-up a10g-b: total 500 (TaintToleration 300, extender 200; the extender's plugins 0..100: GpuScore 50.00, Fragmentation 53.12)",
      '    tie: equal totals; kube-scheduler picks at random among them (here: the first in the input)',
    ]);
  });

  it('gives the margin, or says the node was the only one that fits; nothing without an explanation', () => {
    const runnerUp = { ...best, node: 'a10g-b', total: 480, points: { TaintToleration: 300, extender: 180 } };
    expect(explanationLines({ ...placed, explanation: { best, runnerUp, margin: 20 } }).at(-1)).toBe('    margin 20 points');
    expect(explanationLines({ ...placed, explanation: { best, margin: 0 } }).at(-1)).toBe('    the only node that fits');
    expect(explanationLines(placed)).toEqual([]);
  });
});

describe('unschedulableLines', () => {
  it('counts the nodes kube-scheduler\'s filters removed before the extender\'s verdicts on the rest', () => {
    const lines = unschedulableLines(
      {
        pod: 'ml/big',
        message: '0/8 nodes are available: 1 Not enough GPUs: requested 4, free 2, 7 node(s) had untolerated taint(s).',
        filteredByScheduler: [{ plugin: 'TaintToleration', reason: 'node(s) had untolerated taint(s)', nodes: 7 }],
        rejectedByExtender: [{ code: 'InsufficientGpus', nodes: 1, example: 'Not enough GPUs: requested 4, free 2' }],
      },
      8,
    );
    expect(lines).toEqual([
      'UNSCHEDULABLE ml/big',
      '  kube-scheduler says: 0/8 nodes are available: 1 Not enough GPUs: requested 4, free 2, 7 node(s) had untolerated taint(s).',
      "  1. kube-scheduler's own filters removed 7 of 8 nodes before the extender was asked:",
      '     7 × TaintToleration: node(s) had untolerated taint(s)',
      '  2. the extender rejected the 1 node(s) left:',
      '     1 × InsufficientGpus (e.g. Not enough GPUs: requested 4, free 2)',
    ]);
  });

  it('shows the message of a later try under the one of the pod\'s turn, whose counts follow', () => {
    const lines = unschedulableLines(
      {
        pod: 'ml/follower',
        message: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules.",
        lastMessage: '0/1 nodes are available: 1 Insufficient cpu.',
        filteredByScheduler: [{ plugin: 'InterPodAffinity', reason: "node(s) didn't match pod affinity rules", nodes: 1 }],
        rejectedByExtender: [],
      },
      1,
    );
    expect(lines.slice(0, 4)).toEqual([
      'UNSCHEDULABLE ml/follower',
      "  kube-scheduler says: 0/1 nodes are available: 1 node(s) didn't match pod affinity rules.",
      '  tried again after a later bind: 0/1 nodes are available: 1 Insufficient cpu.',
      "  1. kube-scheduler's own filters removed 1 of 1 nodes before the extender was asked:",
    ]);
  });

  it('explains stranded in one sentence', () => {
    expect(STRANDED_MEANING.replace('e.g.', 'eg').split(/\.\s/).length).toBe(1);
    expect(STRANDED_MEANING).toMatch(/^stranded = /);
  });
});
