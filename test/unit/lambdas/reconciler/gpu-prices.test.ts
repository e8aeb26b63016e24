import { describe, expect, it } from 'vitest';
import { DEFAULT_GPU_PRICES_USD, gpuPricesFromEnv } from '../../../../lambdas/reconciler/gpu-prices';

describe('gpuPricesFromEnv', () => {
  it('is the documented table without GPU_PRICES_USD', () => {
    expect(gpuPricesFromEnv({})).toBe(DEFAULT_GPU_PRICES_USD);
    expect(DEFAULT_GPU_PRICES_USD['p5.48xlarge']).toBe(55.04);
  });

  it('replaces and adds entries from type=price pairs', () => {
    const prices = gpuPricesFromEnv({ GPU_PRICES_USD: ' p5.48xlarge=41.5, p6-b200.48xlarge = 113.9 ' });
    expect([prices['p5.48xlarge'], prices['p6-b200.48xlarge'], prices['g5.xlarge']]).toEqual([41.5, 113.9, 1.006]);
  });

  it.each(['p5.48xlarge', 'p5.48xlarge=cheap', 'p5.48xlarge=-1', 'p5=2', 'a=b=c'])('refuses %j, naming the variable', (value) => {
    expect(() => gpuPricesFromEnv({ GPU_PRICES_USD: value })).toThrow(/GPU_PRICES_USD/);
  });
});
