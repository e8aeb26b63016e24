import { describe, expect, it } from 'vitest';
import { createGpuScore, gpuScore } from '../../../../../lambdas/scheduling';
import { runPlugin } from '../cycle';
import { gpuNode, gpuPod } from '../kube-objects';

const pod2 = gpuPod('p', { gpus: 2 });

describe('GpuScore', () => {
  it('prefers free GPUs just above the request, using FREE not total GPUs', () => {
    const run = runPlugin(
      gpuScore,
      [gpuNode('empty8', { gpus: 8, utilization: '0' }), gpuNode('used8', { gpus: 8, utilization: '0' }), gpuNode('exact2', { gpus: 2, utilization: '0' })],
      pod2,
      [gpuPod('busy', { gpus: 6, nodeName: 'used8' })],
    );
    // Exact fit: 0.7*100 + 0.3*100.
    expect(run.score('exact2')).toBeCloseTo(100);
    // 8 total but only 2 free: scored like an exact fit, which the seed (total GPUs) got wrong.
    expect(run.score('used8')).toBeCloseTo(100);
    // 6 spare GPUs: 0.7*100/7 + 0.3*100.
    expect(run.score('empty8')).toBeCloseTo(0.7 * (100 / 7) + 30);
  });

  it('prefers low utilization; unknown utilization is neutral (50), not idle', () => {
    const run = runPlugin(gpuScore, [gpuNode('idle', { gpus: 2, utilization: '0' }), gpuNode('busy', { gpus: 2, utilization: '90' }), gpuNode('unknown', { gpus: 2 })], pod2);
    expect(run.score('idle')).toBeCloseTo(100);
    expect(run.score('busy')).toBeCloseTo(70 + 0.3 * 10);
    expect(run.score('unknown')).toBeCloseTo(70 + 0.3 * 50);
    expect(run.score('idle')).toBeGreaterThan(run.score('unknown'));
    expect(run.score('unknown')).toBeGreaterThan(run.score('busy'));
  });

  it('weights are configurable', () => {
    const utilOnly = createGpuScore({ fitWeight: 0, utilizationWeight: 1 });
    const run = runPlugin(utilOnly, [gpuNode('a', { gpus: 8, utilization: '20' })], pod2);
    expect(run.score('a')).toBeCloseTo(80);
    expect(() => createGpuScore({ fitWeight: 0, utilizationWeight: 0 })).toThrow(/weights/);
  });

  it('scores 0 for pods without GPUs', () => {
    const run = runPlugin(gpuScore, [gpuNode('a', { utilization: '0' })], gpuPod('cpu'));
    expect(run.score('a')).toBe(0);
  });
});
