import { describe, expect, it } from 'vitest';
import type { NodeInput, PreemptArgs } from '../../../../lambdas/extender/wire-args';
import { describeValue, MAX_NODES_PER_REQUEST, parseExtenderArgs, parsePreemptionArgs } from '../../../../lambdas/extender/wire-args';

function nodesOf(body: unknown): NodeInput {
  const parsed = parseExtenderArgs(body);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value.nodes;
}

function preemption(victims: unknown): PreemptArgs {
  const parsed = parsePreemptionArgs({ Pod: {}, NodeNameToMetaVictims: victims });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe('parseExtenderArgs', () => {
  it('matches field names case-insensitively and ignores unknown fields, as Go does', () => {
    expect(nodesOf({ pod: {}, nodenames: ['a'], Extra: 1, NodeNamesX: 5 })).toEqual({ mode: 'NodeNames', names: ['a'] });
  });

  it('names are taken as sent, repeats included, without a copy; Node items too', () => {
    const names = ['a', 'b', 'a'];
    const input = nodesOf({ Pod: {}, NodeNames: names });
    expect(input.mode === 'NodeNames' && input.names).toBe(names);
    const items = [{ metadata: { name: 'a' } }, 5, { metadata: { name: 'a' } }, null];
    const nodes = nodesOf({ Pod: {}, Nodes: { items } });
    expect(nodes.mode === 'Nodes' && nodes.items).toBe(items);
  });

  it('names the position and kind of a name that is not a string', () => {
    expect(parseExtenderArgs({ Pod: {}, NodeNames: ['a', 7] })).toEqual({ ok: false, error: 'ExtenderArgs.NodeNames must be an array of strings; [1] is 7' });
    expect(parseExtenderArgs({ Pod: {}, NodeNames: [['a']] })).toEqual({ ok: false, error: 'ExtenderArgs.NodeNames must be an array of strings; [0] is an array' });
  });

  it(`takes at most ${MAX_NODES_PER_REQUEST} nodes`, () => {
    const names = Array.from({ length: MAX_NODES_PER_REQUEST }, (_, i) => `n${i}`);
    expect(parseExtenderArgs({ Pod: {}, NodeNames: names }).ok).toBe(true);
    expect(parseExtenderArgs({ Pod: {}, NodeNames: [...names, 'one-more'] })).toEqual({
      ok: false,
      error: `ExtenderArgs.NodeNames has ${MAX_NODES_PER_REQUEST + 1} entries; the extender takes at most ${MAX_NODES_PER_REQUEST} nodes per request`,
    });
  });

  it('a node literally named "__proto__" is just a name', () => {
    expect(nodesOf(JSON.parse('{"Pod": {}, "NodeNames": ["__proto__", "a"]}'))).toEqual({ mode: 'NodeNames', names: ['__proto__', 'a'] });
  });
});

describe('parsePreemptionArgs', () => {
  it('NumPDBViolations: whole numbers 0..2^53-1 pass; absent or null is 0', () => {
    const args = preemption({
      zero: { Pods: [{ UID: 'u' }], NumPDBViolations: 0 },
      two: { Pods: [], NumPDBViolations: 2 },
      max: { NumPDBViolations: Number.MAX_SAFE_INTEGER },
      absent: { Pods: [] },
      nulled: { NumPDBViolations: null },
      nothing: null,
    });
    expect(Object.fromEntries(args.victims)).toEqual({
      zero: { uids: ['u'], numPdbViolations: 0 },
      two: { uids: [], numPdbViolations: 2 },
      max: { uids: [], numPdbViolations: Number.MAX_SAFE_INTEGER },
      absent: { uids: [], numPdbViolations: 0 },
      nulled: { uids: [], numPdbViolations: 0 },
      nothing: { uids: [], numPdbViolations: 0 },
    });
    expect(args.invalid.size).toBe(0);
  });

  it.each([
    [1.5, '1.5'],
    [1e300, '1e+300'],
    [-1, '-1'],
    [2 ** 53, '9007199254740992'],
    ['3', '"3"'],
    [true, 'boolean'],
    [[1], 'an array'],
  ])('NumPDBViolations %j: only that candidate is invalid, named with the value', (value, shown) => {
    const args = preemption({ bad: { Pods: [], NumPDBViolations: value }, good: { Pods: [{ UID: 'u' }], NumPDBViolations: 1 } });
    expect([...args.victims.keys()]).toEqual(['good']);
    expect(Object.fromEntries(args.invalid)).toEqual({ bad: `NodeNameToMetaVictims["bad"].NumPDBViolations is ${shown}, not a whole number 0..9007199254740991` });
  });

  it('an Infinity from JSON (1e400) is invalid too', () => {
    const parsed = parsePreemptionArgs(JSON.parse('{"Pod": {}, "NodeNameToVictims": {"n": {"NumPDBViolations": 1e400}}}'));
    expect(parsed.ok && Object.fromEntries(parsed.value.invalid)).toEqual({ n: 'NodeNameToVictims["n"].NumPDBViolations is Infinity, not a whole number 0..9007199254740991' });
  });

  it.each([
    [3, 'NodeNameToMetaVictims["n"] must be an object, not 3'],
    [[], 'NodeNameToMetaVictims["n"] must be an object, not an array'],
    [{ Pods: 'x' }, 'NodeNameToMetaVictims["n"].Pods must be an array, not "x"'],
    [{ Pods: [{ UID: 'u' }, {}] }, 'NodeNameToMetaVictims["n"].Pods[1] has no UID'],
    [{ Pods: [{ UID: '' }] }, 'NodeNameToMetaVictims["n"].Pods[0] has no UID'],
    [{ Pods: [7] }, 'NodeNameToMetaVictims["n"].Pods[0] has no UID'],
  ])('a bad entry %j makes only its candidate invalid', (entry, message) => {
    const args = preemption({ n: entry, ok: { Pods: [{ metadata: { uid: 'm' } }] } });
    expect(Object.fromEntries(args.victims)).toEqual({ ok: { uids: ['m'], numPdbViolations: 0 } });
    expect(Object.fromEntries(args.invalid)).toEqual({ n: message });
  });

  it('a huge node name is shortened in the message', () => {
    const name = 'x'.repeat(10_000);
    const message = preemption({ [name]: 3 }).invalid.get(name) ?? '';
    expect(message.length).toBeLessThan(120);
    expect(message).toContain('…');
  });

  it.each([
    [{ Pod: {}, NodeNameToMetaVictims: 'x' }, 'ExtenderPreemptionArgs.NodeNameToMetaVictims must be an object keyed by node name'],
    [{ Pod: {}, NodeNameToVictims: [] }, 'ExtenderPreemptionArgs.NodeNameToVictims must be an object keyed by node name'],
    [{ Pod: 5 }, 'ExtenderPreemptionArgs.Pod is missing or not an object'],
    [[], 'request body must be a JSON object (ExtenderPreemptionArgs)'],
  ])('a request that is not ExtenderPreemptionArgs is an error: %j', (body, error) => {
    expect(parsePreemptionArgs(body)).toEqual({ ok: false, error });
  });

  it(`takes at most ${MAX_NODES_PER_REQUEST} candidates`, () => {
    const victims = Object.fromEntries(Array.from({ length: MAX_NODES_PER_REQUEST + 1 }, (_, i) => [`n${i}`, null]));
    expect(parsePreemptionArgs({ Pod: {}, NodeNameToMetaVictims: victims })).toEqual({
      ok: false,
      error: `ExtenderPreemptionArgs.NodeNameToMetaVictims has ${MAX_NODES_PER_REQUEST + 1} entries; the extender takes at most ${MAX_NODES_PER_REQUEST} nodes per request`,
    });
  });
});

describe('describeValue', () => {
  it('keeps messages short whatever the value', () => {
    expect(describeValue('y'.repeat(1000))).toBe(`"${'y'.repeat(40)}"…`);
    expect(describeValue({ a: 1 })).toBe('an object');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(undefined)).toBe('undefined');
  });
});
