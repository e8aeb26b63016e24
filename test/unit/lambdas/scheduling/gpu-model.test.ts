import { describe, expect, it } from 'vitest';
import { canonicalModel, modelMatches, modelTokens, splitModelAlternatives } from '../../../../lambdas/scheduling';

const matches = (wanted: string, node: string): boolean => modelMatches(modelTokens(wanted), modelTokens(node));

describe('GPU model matching', () => {
  it.each([
    ['A100', 'A100'],
    ['a100', 'A100'],
    ['A100', 'NVIDIA-A100-SXM4-40GB'],
    ['a100 40gb', 'NVIDIA-A100-SXM4-40GB'],
    ['H100', 'NVIDIA-H100-80GB-HBM3'],
    ['T4', 'Tesla-T4'],
    ['A10G', 'NVIDIA-A10G'],
    ['l4', 'NVIDIA L4'],
    ['NVIDIA-A100-SXM4-40GB', 'nvidia-a100-sxm4-40gb'],
  ])('%s matches node %s', (wanted, node) => {
    expect(matches(wanted, node)).toBe(true);
  });

  it.each([
    ['A10', 'A10G'],
    ['A10', 'A100'],
    ['A100', 'H100'],
    ['L4', 'L40S'],
    ['a100 80gb', 'NVIDIA-A100-SXM4-40GB'],
    ['NVIDIA', 'NVIDIA-A100'],
  ])('%s does not match node %s', (wanted, node) => {
    expect(matches(wanted, node)).toBe(false);
  });

  it('splits alternatives on | and ,', () => {
    expect(splitModelAlternatives('A100|H100')).toEqual(['A100', 'H100']);
    expect(splitModelAlternatives(' a100 , h100 ,')).toEqual(['a100', 'h100']);
    expect(splitModelAlternatives('|')).toEqual([]);
  });
});

describe('canonicalModel', () => {
  it.each([
    ['A100', 'A100'],
    ['a100', 'A100'],
    ['NVIDIA-A100-SXM4-40GB', 'A100'],
    ['NVIDIA-A100-SXM4-40GB-SHARED', 'A100'],
    ['A100-SXM4-40GB-MIG-1g.5gb', 'A100'],
    ['NVIDIA-H100-80GB-HBM3', 'H100'],
    ['Tesla-T4', 'T4'],
    ['l40s', 'L40S'],
    ['NVIDIA', ''],
  ])('%s is %s', (name, canonical) => {
    expect(canonicalModel(name)).toBe(canonical);
  });
});
