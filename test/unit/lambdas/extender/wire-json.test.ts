import { describe, expect, it } from 'vitest';
import { defineLazyField, quotedNodeName, wireText, withWriter } from '../../../../lambdas/extender/wire-json';
import { nodeInfoFromKubernetes } from '../../../../lambdas/scheduling';

describe('wireText', () => {
  it('is JSON.stringify for a body without a writer', () => {
    for (const body of [{ Error: 'x' }, [1, 2], 'text', 3, null]) expect(wireText(body)).toBe(JSON.stringify(body));
  });

  it("uses the body's writer, which JSON.stringify, key listing and equality do not see", () => {
    const body = withWriter({ a: 1 }, () => '{"a":1,"written":true}');
    expect(wireText(body)).toBe('{"a":1,"written":true}');
    expect(JSON.stringify(body)).toBe('{"a":1}');
    expect(Object.keys(body)).toEqual(['a']);
    expect(body).toEqual({ a: 1 });
  });
});

describe('defineLazyField', () => {
  it('computes the field once, on first read, as an enumerable field in its place', () => {
    let computed = 0;
    const body: { first: number; late: number[]; last: string } = { first: 1, late: [], last: 'z' };
    defineLazyField(body, 'late', () => {
      computed++;
      return [computed];
    });
    expect(computed).toBe(0);
    expect(JSON.stringify(body)).toBe('{"first":1,"late":[1],"last":"z"}');
    expect(body.late).toEqual([1]);
    expect(computed).toBe(1);
    expect(body).toEqual({ first: 1, late: [1], last: 'z' });
  });
});

describe('quotedNodeName', () => {
  it('is the JSON string of the name, escapes included', () => {
    for (const name of ['ip-10-0-0-1.ec2.internal', 'quote"back\\slash', 'tab\there', '\ud800lone']) {
      const node = nodeInfoFromKubernetes({ metadata: { name } });
      if (node === undefined) throw new Error('no node');
      expect(quotedNodeName(node)).toBe(JSON.stringify(name));
      expect(quotedNodeName(node)).toBe(JSON.stringify(name));
    }
  });
});
