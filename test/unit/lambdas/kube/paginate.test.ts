import { describe, expect, it } from 'vitest';
import { paginate } from '../../../../lambdas/kube';

describe('paginate', () => {
  it('follows continue tokens until the last page and passes each token back', async () => {
    const pages: Record<string, { items: number[]; metadata?: { _continue?: string } }> = {
      '': { items: [1, 2], metadata: { _continue: 'a' } },
      a: { items: [3, 4], metadata: { _continue: 'b' } },
      b: { items: [5], metadata: { _continue: '' } },
    };
    const asked: (string | undefined)[] = [];
    const seen: number[][] = [];
    for await (const page of paginate(async ({ _continue }) => {
      asked.push(_continue);
      const result = pages[_continue ?? ''];
      if (!result) throw new Error(`unexpected token ${_continue}`);
      return result;
    })) {
      seen.push([...page]);
    }
    expect(asked).toEqual([undefined, 'a', 'b']);
    expect(seen).toEqual([[1, 2], [3, 4], [5]]);
  });
});
