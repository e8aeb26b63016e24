import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { defineLazyField, jsonStringContent, requestedNamesOf, wireText, withWriter } from '../../../../lambdas/extender/wire-json';
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

  it("gives each body its own value, several fields each, read in any order", () => {
    const bodies = [0, 1, 2].map((i) => {
      const body: { a: string; b: string } = { a: '', b: '' };
      defineLazyField(body, 'a', () => `a${i}`);
      defineLazyField(body, 'b', () => `b${i}`);
      return body;
    });
    expect(bodies[2]!.b).toBe('b2');
    expect(bodies.map((body) => JSON.stringify(body))).toEqual(['{"a":"a0","b":"b0"}', '{"a":"a1","b":"b1"}', '{"a":"a2","b":"b2"}']);
    expect(bodies[1]).toEqual({ a: 'a1', b: 'b1' });
    expect(Object.keys(bodies[0]!)).toEqual(['a', 'b']);
  });

  it('shares one getter per field name across bodies, so no reply hands V8 a closure of its own to keep', () => {
    const one = { late: 0 };
    const two = { late: 0 };
    defineLazyField(one, 'late', () => 1);
    defineLazyField(two, 'late', () => 2);
    const getter = (body: object) => Object.getOwnPropertyDescriptor(body, 'late')?.get;
    expect(getter(one)).toBeTypeOf('function');
    expect(getter(one)).toBe(getter(two));
    expect([one.late, two.late]).toEqual([1, 2]);
    expect(getter(one)).toBeUndefined();
  });
});

describe('jsonStringContent', () => {
  it('is JSON.stringify of the text without its quotes, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('ip-10-0-0-1.ec2.internal', 'quote"back\\slash', 'tab\there', '\ud800lone', '\u{1f642}', '\u2028')), (text) => {
        expect(`"${jsonStringContent(text)}"`).toBe(JSON.stringify(text));
      }),
      { numRuns: 500 },
    );
  });

  it('gives a DNS name back as it is, no copy', () => {
    const name = 'ip-10-0-0-1.us-west-2.compute.internal';
    expect(jsonStringContent(name)).toBe(name);
  });
});

describe('requestedNamesOf', () => {
  const node = (name: string) => {
    const info = nodeInfoFromKubernetes({ metadata: { name } });
    if (info === undefined) throw new Error('no node');
    return info;
  };

  it("gives the request's string for each node of a subsequence, repeats included, without reading the nodes", () => {
    const [a, b, c] = [node('a'), node('b'), node('c')];
    const requested = { nodes: [a, b, a, c], names: ['A-as-sent', 'B-as-sent', 'A-again', 'C-as-sent'], plain: true };
    expect(requestedNamesOf(requested, [a, a, c])).toEqual(['A-as-sent', 'A-again', 'C-as-sent']);
    expect(requestedNamesOf(requested, [b])).toEqual(['B-as-sent']);
    expect(requestedNamesOf(requested, [])).toEqual([]);
  });

  it("falls back to the nodes' own names for what is not a subsequence", () => {
    const [a, b, stranger] = [node('a'), node('b'), node('stranger')];
    const requested = { nodes: [a, b], names: ['A-as-sent', 'B-as-sent'], plain: true };
    expect(requestedNamesOf(requested, [b, a])).toEqual(['B-as-sent', 'a']);
    expect(requestedNamesOf(requested, [stranger, a])).toEqual(['stranger', 'a']);
  });
});
