import { describe, expect, it } from 'vitest';
import { isEverything, labelSelectorOf, nodeSelectorRequirementsOf, parseLabelSelector, requirementMatches, selectorMatches, withLabelKeys } from '../../../../lambdas/scheduling';

function parse(text: string) {
  const result = parseLabelSelector(text);
  if (!result.ok) throw new Error(result.error);
  return result.selector;
}

describe('label selectors', () => {
  it('equality and inequality', () => {
    const selector = parse('app=trainer,job==x,tier!=db');
    expect(selectorMatches(selector, { app: 'trainer', job: 'x' })).toBe(true);
    expect(selectorMatches(selector, { app: 'trainer', job: 'x', tier: 'db' })).toBe(false);
    expect(selectorMatches(selector, { app: 'trainer' })).toBe(false);
  });

  it('set-based and existence', () => {
    const selector = parse('env in (prod, staging),team notin (x),gpu,!legacy');
    expect(selectorMatches(selector, { env: 'prod', gpu: '' })).toBe(true);
    expect(selectorMatches(selector, { env: 'dev', gpu: '' })).toBe(false);
    expect(selectorMatches(selector, { env: 'prod', gpu: '', team: 'x' })).toBe(false);
    expect(selectorMatches(selector, { env: 'prod', gpu: '', legacy: 'y' })).toBe(false);
    expect(selectorMatches(selector, { env: 'prod' })).toBe(false);
  });

  it('prefixed keys', () => {
    expect(selectorMatches(parse('example.com/job=a'), { 'example.com/job': 'a' })).toBe(true);
  });

  it('an empty value means "present with empty value", as in Kubernetes', () => {
    expect(selectorMatches(parse('app='), { app: '' })).toBe(true);
    expect(selectorMatches(parse('app='), { app: 'x' })).toBe(false);
  });

  it.each(['', ' ', 'a,,b', 'env in (a', 'env in ()', '=x', 'a b', 'app=tr ainer', 'bad key=x', 'k=v)'])('rejects %j', (text) => {
    expect(parseLabelSelector(text).ok).toBe(false);
  });
});

describe('label selectors in their object forms, as kube-scheduler reads them from a pod', () => {
  it('a nil selector matches nothing, an empty one everything (metav1.LabelSelectorAsSelector)', () => {
    expect(labelSelectorOf(undefined)).toBeNull();
    expect(selectorMatches(labelSelectorOf(null), { app: 'x' })).toBe(false);
    expect(isEverything(labelSelectorOf({}))).toBe(true);
    expect(isEverything(labelSelectorOf(undefined))).toBe(false);
    expect(selectorMatches(labelSelectorOf({}), {})).toBe(true);
  });

  it('matchLabels and matchExpressions together; NotIn and DoesNotExist match a missing key; an unknown operator matches nothing', () => {
    const selector = labelSelectorOf({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }, { key: 'old', operator: 'DoesNotExist' }] });
    expect(selectorMatches(selector, { app: 'web' })).toBe(true);
    expect(selectorMatches(selector, { app: 'web', tier: 'db' })).toBe(false);
    expect(selectorMatches(selector, { app: 'web', old: '' })).toBe(false);
    expect(selectorMatches(selector, { app: 'api' })).toBe(false);
    // Gt and Lt are node selector operators only.
    expect(labelSelectorOf({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] })).toBeNull();
    expect(labelSelectorOf({ matchExpressions: [{ key: 'a', operator: 'Near', values: ['1'] }] })).toBeNull();
  });

  it('node selector requirements compare base-10 int64s with Gt and Lt, as strconv.ParseInt reads them', () => {
    const [gt, lt] = nodeSelectorRequirementsOf([
      { key: 'gpus', operator: 'Gt', values: ['4'] },
      { key: 'gpus', operator: 'Lt', values: ['+16'] },
    ]) ?? [];
    if (gt === undefined || lt === undefined) throw new Error('both requirements parse');
    expect(requirementMatches(gt, { gpus: '8' })).toBe(true);
    expect(requirementMatches(gt, { gpus: '4' })).toBe(false);
    expect(requirementMatches(gt, { gpus: '-8' })).toBe(false);
    expect(requirementMatches(gt, { gpus: 'many' })).toBe(false);
    expect(requirementMatches(gt, { gpus: '8.0' })).toBe(false);
    expect(requirementMatches(gt, {})).toBe(false);
    expect(requirementMatches(lt, { gpus: '15' })).toBe(true);
    expect(requirementMatches(lt, { gpus: '16' })).toBe(false);
    // Exact beyond 2^53, and nothing beyond int64.
    expect(requirementMatches({ key: 'n', operator: 'Gt', values: ['9007199254740992'] }, { n: '9007199254740993' })).toBe(true);
    expect(requirementMatches({ key: 'n', operator: 'Lt', values: ['1'] }, { n: '-9223372036854775808' })).toBe(true);
    expect(requirementMatches({ key: 'n', operator: 'Lt', values: ['1'] }, { n: '-9223372036854775809' })).toBe(false);
    // Exactly one value.
    expect(requirementMatches({ key: 'n', operator: 'Gt', values: ['1', '2'] }, { n: '5' })).toBe(false);
    expect(nodeSelectorRequirementsOf([{ key: 'x', operator: 'Near' }])).toBeUndefined();
    expect(nodeSelectorRequirementsOf(undefined)).toEqual([]);
  });

  it("matchLabelKeys adds the pod's own values; a selector that matches nothing stays so", () => {
    const selector = withLabelKeys(labelSelectorOf({ matchLabels: { app: 'web' } }), ['rev', 'absent'], { app: 'web', rev: '7' });
    expect(selectorMatches(selector, { app: 'web', rev: '7' })).toBe(true);
    expect(selectorMatches(selector, { app: 'web', rev: '6' })).toBe(false);
    expect(withLabelKeys(null, ['rev'], { rev: '7' })).toBeNull();
  });

  it('the string and object forms agree on the operators they share', () => {
    const text = parse('app in (web,api),tier notin (db),gpu,!legacy');
    const object = labelSelectorOf({
      matchExpressions: [
        { key: 'app', operator: 'In', values: ['web', 'api'] },
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'gpu', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    const cases: Record<string, string>[] = [{ app: 'web', gpu: '' }, { app: 'api', gpu: '1', tier: 'db' }, { app: 'x', gpu: '' }, { app: 'web', gpu: '', legacy: 'y' }, {}];
    for (const labels of cases) {
      expect(selectorMatches(object, labels)).toBe(selectorMatches(text, labels));
    }
  });
});
