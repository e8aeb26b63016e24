import { describe, expect, it } from 'vitest';
import { mergeSystemFigures, parseSystemFigures } from '../../../charts/system-figures';

const cold = (nodes: number, coldMs: number, measured: string) => ({ nodes, pods: nodes * 10, vcpu: 1, coldMs, httpTimeoutMs: 5000, measured });

describe('system figures', () => {
  it('keeps one figure per size and setting, the newest, sorted by cluster size', () => {
    const merged = mergeSystemFigures({ coldFirstAnswer: [cold(5000, 2075, 'a'), cold(1000, 600, 'a')], throughput: [] }, { coldFirstAnswer: [cold(1000, 588, 'b')] });
    expect(merged.coldFirstAnswer.map((c) => [c.nodes, c.coldMs, c.measured])).toEqual([
      [1000, 588, 'b'],
      [5000, 2075, 'a'],
    ]);
    expect(merged.throughput).toEqual([]);
  });

  it('names the file and the field when the figures are malformed', () => {
    expect(() => parseSystemFigures('{"coldFirstAnswer": [{"nodes": -1}], "throughput": []}', 'x.json')).toThrow(/x\.json: not system benchmark figures:[\s\S]*nodes/);
  });
});
