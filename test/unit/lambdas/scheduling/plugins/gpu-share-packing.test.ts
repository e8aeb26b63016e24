import { describe, expect, it } from 'vitest';
import { gpuSharePacking } from '../../../../../lambdas/scheduling/plugins/gpu-share-packing';
import { nodeWithFree, pod, scoresOf } from './harness';

describe('GpuSharePacking (FGD paper baseline)', () => {
  const share = pod({ gpuCount: 1, gpuMilli: 300 });
  it('ranks shared devices over free devices of a used node over untouched nodes', () => {
    const nodes = [nodeWithFree('untouched', [1000, 1000]), nodeWithFree('used', [0, 1000]), nodeWithFree('shared', [400, 1000])];
    const s = scoresOf(gpuSharePacking, nodes, share);
    expect(s.shared).toBe(96); // 100 - 40 % free / 10
    expect(s.used).toBe(49); // 50 - one whole GPU opened
    expect(s.untouched).toBe(31); // 33 - 2 GPUs
  });

  it('scores pods without GPUs 0 everywhere', () => {
    expect(scoresOf(gpuSharePacking, [nodeWithFree('n', [1000])], pod({ gpuCount: 0 }))).toEqual({ n: 0 });
  });
});
