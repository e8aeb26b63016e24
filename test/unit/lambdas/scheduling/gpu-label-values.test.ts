import { describe, expect, it } from 'vitest';
import { desiredGpuLabels, GFD_GPU_LABEL, GPU_LABEL, KARPENTER_GPU_LABEL } from '../../../../lambdas/labeler/gpu-labels';
import { GPU_MODEL_SPELLINGS, modelLabelValues, type Labeller } from '../../../../lambdas/scheduling/gpu-label-values';
import { canonicalModel, MARKETED_GPU_MEMORY_GIB, modelMatches, modelTokens } from '../../../../lambdas/scheduling/gpu-model';

const LABELLERS: readonly Labeller[] = ['karpenter', 'autoMode', 'ours', 'gfd'];

describe('GPU model label values per labeller', () => {
  it('covers exactly the models of the marketed-memory table', () => {
    expect(Object.keys(GPU_MODEL_SPELLINGS).sort()).toEqual(Object.keys(MARKETED_GPU_MEMORY_GIB).sort());
  });

  it.each(Object.keys(GPU_MODEL_SPELLINGS))('every value written for %s names that model, and the model name matches it as the extender compares', (model) => {
    for (const labeller of LABELLERS) {
      const values = modelLabelValues(model, labeller);
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) {
        expect({ labeller, value, canonical: canonicalModel(value) }).toEqual({ labeller, value, canonical: model });
        expect(modelMatches(modelTokens(model), modelTokens(value))).toBe(true);
      }
    }
  });

  it.each(Object.entries(GPU_MODEL_SPELLINGS).map(([model, spelling]) => [model, spelling.ec2] as const))(
    '%s: every model label our labeler writes (EC2 name %s, Karpenter- and GFD-style copies) is listed',
    (model, ec2) => {
      const labels = desiredGpuLabels(
        { instanceType: 'x', gpus: [{ name: ec2, manufacturer: 'NVIDIA', count: 1, memoryMiB: 1024 }], totalMemoryMiB: 1024 },
        { karpenterLabels: true, gfdLabels: true, manufacturers: ['NVIDIA'] },
      );
      expect(modelLabelValues(model, 'ours')).toContain(labels[GPU_LABEL.model]);
      expect(modelLabelValues(model, 'karpenter')).toContain(labels[KARPENTER_GPU_LABEL.name]);
      expect(modelLabelValues(model, 'gfd')).toContain(labels[GFD_GPU_LABEL.product]);
    },
  );

  it('lists GPU Feature Discovery\'s products as the driver names them, shared or not', () => {
    expect(modelLabelValues('H100', 'gfd')).toEqual(expect.arrayContaining(['NVIDIA-H100-80GB-HBM3', 'NVIDIA-H100-80GB-HBM3-SHARED']));
    expect(modelLabelValues('A10G', 'gfd')).toEqual(expect.arrayContaining(['NVIDIA-A10G', 'NVIDIA-A10G-SHARED']));
    expect(modelLabelValues('T4', 'gfd')).toContain('Tesla-T4');
    expect(modelLabelValues('H100', 'karpenter')).toEqual(['h100']);
    expect(modelLabelValues('T4G', 'ours')).toEqual(['T4g', 'T4G']);
    expect(modelLabelValues('X999', 'gfd')).toEqual([]);
  });
});
