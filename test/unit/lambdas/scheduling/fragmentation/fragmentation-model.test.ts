import { describe, expect, it } from 'vitest';
import { FragmentationModel } from '../../../../../lambdas/scheduling/fragmentation/fragmentation-model';
import { nodeWithFree } from '../plugins/harness';

const NO_TERMS = { partial: 0, inUse: 0 };

describe('FragmentationModel', () => {
  // Three 1-GPU pods to each 8-GPU job: the one-device shapes are w₁ = 0.75 of the workload.
  const shapes = [
    { cpuMilli: 0, gpuCount: 1, gpuMilli: 1000, weight: 3 },
    { cpuMilli: 0, gpuCount: 8, gpuMilli: 1000, weight: 1 },
  ];
  // Four whole GPUs free of eight: every one-device shape fits and fills them (no fragment in either view),
  // the 8-GPU shape does not: FGD counts its weight × the free GPU, 0.25 × 4000 = 1000.
  const halfUsed = () => nodeWithFree('half-used', [1000, 1000, 1000, 1000, 0, 0, 0, 0]);

  it("counts the multi-GPU shapes' part as much as FGD's view counts in the blend: 1 − λ × w₁", () => {
    expect(new FragmentationModel(shapes, 0).fragmentOf(halfUsed(), NO_TERMS)).toBeCloseTo(1000, 6);
    for (const lookahead of [0.5, 0.9, 1]) {
      expect(new FragmentationModel(shapes, lookahead).fragmentOf(halfUsed(), NO_TERMS), `lookahead ${lookahead}`).toBeCloseTo(
        (1 - lookahead * 0.75) * 1000,
        6,
      );
    }
  });

  it('keeps that part whole when multi-GPU jobs are the whole workload', () => {
    const jobsOnly = [{ cpuMilli: 0, gpuCount: 8, gpuMilli: 1000, weight: 1 }];
    for (const lookahead of [0, 0.9, 1]) {
      expect(new FragmentationModel(jobsOnly, lookahead).fragmentOf(halfUsed(), NO_TERMS), `lookahead ${lookahead}`).toBeCloseTo(4000, 6);
    }
  });
});
