import { describe, expect, it } from 'vitest';
import { failedSchedulingLines } from '../../../../local/start/failed-scheduling';

describe('failedSchedulingLines', () => {
  it('puts each reason of the scheduler message on its own line', () => {
    const message =
      '0/12 nodes are available: 1 Not enough GPUs: requested 8, free 4, 3 GPU model mismatch: pod wants H100, node has A100. ' +
      'no new claims to deallocate, preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.';
    expect(failedSchedulingLines(message)).toEqual([
      '0/12 nodes are available:',
      '  1 × Not enough GPUs: requested 8, free 4',
      '  3 × GPU model mismatch: pod wants H100, node has A100',
      'preemption: 0/12 nodes are available: 12 Preemption is not helpful for scheduling.',
    ]);
  });

  it('leaves other messages alone', () => {
    expect(failedSchedulingLines('something else')).toEqual(['something else']);
  });
});
