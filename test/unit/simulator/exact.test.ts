import { describe, expect, it } from 'vitest';
import { extenderEnvironment } from '../../../simulator/exact';

describe('extenderEnvironment', () => {
  it('gives the real extender the --weights options as its variables, and a cache that sees every bind', () => {
    expect(extenderEnvironment({ weights: { GpuScore: 2, NetworkLocality: 0 }, gpuScore: { fitWeight: 0.5 } })).toEqual({
      EXTENDER_CACHE_TTL: '0ms',
      EXTENDER_WEIGHT_GPU_SCORE: '2',
      EXTENDER_WEIGHT_NETWORK_LOCALITY: '0',
      EXTENDER_GPU_FIT_WEIGHT: '0.5',
    });
  });
});
