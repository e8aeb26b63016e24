import { describe, expect, it } from 'vitest';
import { createBestFit } from '../../../../../lambdas/scheduling/plugins/best-fit';
import { nodeWithFree, pod, scoresOf } from './harness';

describe('BestFit (FGD paper baseline)', () => {
  it('prefers the node with the least CPU and GPU left after placement, rescaled 0..100', () => {
    const nodes = [nodeWithFree('empty', [1000, 1000, 1000, 1000]), nodeWithFree('half', [1000, 1000, 0, 0]), nodeWithFree('tight', [1000, 0, 0, 0])];
    const scores = scoresOf(createBestFit(), nodes, pod({ gpuCount: 1, gpuMilli: 1000 }));
    expect(scores.tight).toBe(100);
    expect(scores.empty).toBe(0);
    expect(scores.half).toBeGreaterThan(0);
    expect(scores.half).toBeLessThan(100);
  });

  it('counts CPU left over too', () => {
    const nodes = [nodeWithFree('idle-cpu', [1000]), nodeWithFree('busy-cpu', [1000], {}, 48_000)];
    const scores = scoresOf(createBestFit(), nodes, pod({ gpuCount: 1, gpuMilli: 1000 }));
    expect(scores['busy-cpu']).toBeGreaterThan(scores['idle-cpu'] ?? 0);
  });
});
