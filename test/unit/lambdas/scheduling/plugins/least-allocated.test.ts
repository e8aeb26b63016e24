import { describe, expect, it } from 'vitest';
import { leastAllocated } from '../../../../../lambdas/scheduling/plugins/least-allocated';
import { nodeWithFree, pod, scoresOf } from './harness';

describe('LeastAllocated (kube-scheduler default spread)', () => {
  it('prefers the node with the most CPU and memory left', () => {
    const s = scoresOf(leastAllocated, [nodeWithFree('idle', [1000]), nodeWithFree('busy', [1000], {}, 32_000)], pod({ gpuCount: 0, cpuMilli: 0 }));
    expect(s.idle).toBe(100);
    expect(s.busy).toBe(75); // CPU half free (50), memory all free (100)
  });
});
