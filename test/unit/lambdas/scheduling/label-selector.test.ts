import { describe, expect, it } from 'vitest';
import { parseLabelSelector, selectorMatches } from '../../../../lambdas/scheduling';

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
