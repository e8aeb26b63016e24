import { describe, expect, it } from 'vitest';
import { tolerates, untoleratedTaint } from '../../../../simulator/in-tree/taints';

const taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };

describe('taints and tolerations', () => {
  it('Exists matches any value, Equal the same value, an empty key with Exists every taint, an effect only its own', () => {
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Exists', value: '', effect: '' }, taint)).toBe(true);
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Equal', value: 'false', effect: '' }, taint)).toBe(false);
    expect(tolerates({ key: '', operator: 'Exists', value: '', effect: '' }, taint)).toBe(true);
    expect(tolerates({ key: 'nvidia.com/gpu', operator: 'Exists', value: '', effect: 'NoExecute' }, taint)).toBe(false);
    // Comparison operators are off by default in kube-scheduler v1.36.
    expect(tolerates({ key: 'n', operator: 'Gt', value: '1', effect: '' }, { key: 'n', value: '2', effect: 'NoSchedule' })).toBe(false);
  });

  it('only NoSchedule and NoExecute taints keep a pod off', () => {
    expect(untoleratedTaint([{ ...taint, effect: 'PreferNoSchedule' }], [])).toBeUndefined();
    expect(untoleratedTaint([taint], [])).toEqual(taint);
  });
});
