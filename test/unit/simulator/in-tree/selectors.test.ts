import { describe, expect, it } from 'vitest';
import { isEverything, labelSelectorOf, nodeRequirementsOf, requirementMatches, selectorMatches, withLabelKeys } from '../../../../simulator/in-tree/selectors';

describe('label selectors in their object form', () => {
  it('a nil selector matches nothing, an empty one everything (metav1.LabelSelectorAsSelector)', () => {
    expect(selectorMatches(labelSelectorOf(undefined), { app: 'x' })).toBe(false);
    expect(isEverything(labelSelectorOf({}))).toBe(true);
    expect(selectorMatches(labelSelectorOf({}), {})).toBe(true);
  });

  it('matchLabels and matchExpressions together; NotIn and DoesNotExist match a missing key; an unknown operator matches nothing', () => {
    const selector = labelSelectorOf({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] });
    expect(selectorMatches(selector, { app: 'web' })).toBe(true);
    expect(selectorMatches(selector, { app: 'web', tier: 'db' })).toBe(false);
    expect(selectorMatches(labelSelectorOf({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), { a: '2' })).toBe(false);
  });

  it('node selector requirements compare integers with Gt and Lt', () => {
    const [gt] = nodeRequirementsOf([{ key: 'gpus', operator: 'Gt', values: ['4'] }]) ?? [];
    expect(gt && requirementMatches(gt, { gpus: '8' })).toBe(true);
    expect(gt && requirementMatches(gt, { gpus: '4' })).toBe(false);
    expect(gt && requirementMatches(gt, { gpus: 'many' })).toBe(false);
    expect(nodeRequirementsOf([{ key: 'x', operator: 'Near' }])).toBeUndefined();
  });

  it('matchLabelKeys adds the pod\'s own values', () => {
    const selector = withLabelKeys(labelSelectorOf({ matchLabels: { app: 'web' } }), ['rev', 'absent'], { app: 'web', rev: '7' });
    expect(selectorMatches(selector, { app: 'web', rev: '7' })).toBe(true);
    expect(selectorMatches(selector, { app: 'web', rev: '6' })).toBe(false);
  });
});
