import { describe, expect, it } from 'vitest';
import { createRng } from '../../../../bench/trace/seeded-rng';
import type { TracePod } from '../../../../bench/trace/trace-csv';
import { AllocationCheckpoints, buildArrivalSequence, podGpuMilli } from '../../../../bench/trace/trace-workload';

function pod(name: string, numGpu: number, gpuMilli: number): TracePod {
  return { name, cpuMilli: 1000, memoryMiB: 1024, numGpu, gpuMilli, gpuSpec: [] };
}

const PODS: TracePod[] = [pod('p-3', 1, 500), pod('p-1', 1, 1000), pod('p-2', 2, 1000), pod('p-0', 0, 0), pod('p-4', 1, 250)];
const requested = (pods: readonly TracePod[]) => pods.reduce((s, p) => s + podGpuMilli(p), 0);

describe('arrival sequence (the paper method)', () => {
  it('keeps every original pod, then appends clones until the next one would pass 1.3x capacity', () => {
    const capacity = 10_000;
    const seq = buildArrivalSequence(PODS, createRng(42), { targetRatio: 1.3, capacityGpuMilli: capacity });
    expect(seq.slice(0, PODS.length).map((p) => p.name).sort()).toEqual(['p-0', 'p-1', 'p-2', 'p-3', 'p-4']);
    const clones = seq.slice(PODS.length);
    expect(clones.length).toBeGreaterThan(0);
    expect(clones.every((p, i) => p.name.endsWith(`-clone-${i}`))).toBe(true);
    expect(requested(seq)).toBeLessThanOrEqual(1.3 * capacity);
    // Sampling stops at the first pod that would overshoot: the gap is smaller than the largest request.
    expect(1.3 * capacity - requested(seq)).toBeLessThan(2000);
  });

  it('depends on the seed and the pod names, not on the input order', () => {
    const options = { targetRatio: 1.3, capacityGpuMilli: 8000 };
    const a = buildArrivalSequence(PODS, createRng(5), options).map((p) => p.name);
    const b = buildArrivalSequence([...PODS].reverse(), createRng(5), options).map((p) => p.name);
    const c = buildArrivalSequence(PODS, createRng(6), options).map((p) => p.name);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('trims random pods when the trace already asks for more than the target', () => {
    const seq = buildArrivalSequence(PODS, createRng(1), { targetRatio: 1, capacityGpuMilli: 2000 });
    expect(requested(seq)).toBeLessThanOrEqual(2000);
    expect(seq.length).toBeLessThan(PODS.length);
  });
});

describe('allocation checkpoints', () => {
  it('records allocation each time arrivals cross another whole percent of capacity', () => {
    const cp = new AllocationCheckpoints(1000, 130);
    cp.record(5, 5); // 0.5 %: nothing crossed
    cp.record(10, 15); // 1.5 %: crosses 1 %
    cp.record(20, 15); // 3.5 %: crosses 2 % and 3 % at once (the pod did not fit)
    const values = cp.finish(15);
    expect([...values.entries()]).toEqual([
      [1, 1.5],
      [2, 1.5],
      [3, 1.5],
      // 3.5 % rounds to 4 %: filled from the final state, as the paper's analysis rounds arrivals.
      [4, 1.5],
    ]);
  });

  it('never records past the maximum percent', () => {
    const cp = new AllocationCheckpoints(100, 130);
    cp.record(200, 90);
    const values = cp.finish(90);
    expect(Math.max(...values.keys())).toBe(130);
    expect(values.get(130)).toBe(90);
  });

  it('rejects a cluster without GPUs', () => {
    expect(() => new AllocationCheckpoints(0, 130)).toThrow(/no GPU capacity/);
  });
});
