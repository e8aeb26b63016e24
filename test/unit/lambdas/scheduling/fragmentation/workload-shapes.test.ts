import { describe, expect, it } from 'vitest';
import { typicalShapes } from '../../../../../lambdas/scheduling/fragmentation/workload-shapes';

describe('typicalShapes', () => {
  it('keeps the most frequent shapes until the coverage is reached and renormalises', () => {
    const samples = [
      ...Array.from({ length: 6 }, () => ({ cpuMilli: 1000, gpuCount: 1, gpuMilli: 500 })),
      ...Array.from({ length: 3 }, () => ({ cpuMilli: 2000, gpuCount: 1, gpuMilli: 1000 })),
      { cpuMilli: 4000, gpuCount: 8, gpuMilli: 1000 },
    ];
    const shapes = typicalShapes(samples, 0.9);
    expect(shapes.map((s) => [s.gpuCount, s.gpuMilli, s.weight])).toEqual([
      [1, 500, 6 / 9],
      [1, 1000, 3 / 9],
    ]);
    expect(() => typicalShapes(samples, 0)).toThrow(RangeError);
  });

  it('counts pods of one CPU and GPU request as one shape whatever their memory, with the least memory among them', () => {
    const GIB = 2 ** 30;
    const samples = [
      { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 40 * GIB },
      { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 24 * GIB },
      { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 60 * GIB },
      { cpuMilli: 2000, gpuCount: 1, gpuMilli: 500 },
    ];
    expect(typicalShapes(samples, 1)).toEqual([
      { cpuMilli: 1000, gpuCount: 1, gpuMilli: 1000, memoryBytes: 24 * GIB, weight: 3 / 4 },
      { cpuMilli: 2000, gpuCount: 1, gpuMilli: 500, weight: 1 / 4 },
    ]);
  });
});
