import { describe, expect, it } from 'vitest';
import { gpuPacking } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuNode, gpuPod } from '../kube-objects';

describe('GpuPacking', () => {
  it('fills partly used nodes before whole empty ones', () => {
    const run = runPlugin(gpuPacking, [gpuNode('empty', { gpus: 8 }), gpuNode('half', { gpus: 8 }), gpuNode('small', { gpus: 1 })], gpuPod('p', { gpus: 1 }), [
      gpuPod('a', { gpus: 4, nodeName: 'half' }),
    ]);
    expect(run.score('empty')).toBeCloseTo(12.5);
    expect(run.score('half')).toBeCloseTo(62.5);
    expect(run.score('small')).toBeCloseTo(100);
  });

  it('scores 0 for GPU-less nodes and pods', () => {
    expect(runPlugin(gpuPacking, [gpuNode('n', { gpus: 0 })], gpuPod('p', { gpus: 1 })).score('n')).toBe(0);
    expect(runPlugin(gpuPacking, [gpuNode('n')], gpuPod('p')).score('n')).toBe(0);
  });
});
