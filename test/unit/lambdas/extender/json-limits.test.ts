import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonDepthExceeded, MAX_JSON_DEPTH, parseJsonWithinLimits } from '../../../../lambdas/extender/json-limits';

const nested = (open: string, close: string, levels: number, inner = '1') => `${open.repeat(levels)}${inner}${close.repeat(levels)}`;

describe('jsonDepthExceeded', () => {
  it('counts objects and arrays alike, up to the limit inclusive', () => {
    expect(jsonDepthExceeded(nested('[', ']', 3), 3)).toBe(-1);
    expect(jsonDepthExceeded(nested('[', ']', 4), 3)).toBe(3);
    expect(jsonDepthExceeded(nested('{"a":', '}', 3), 3)).toBe(-1);
    expect(jsonDepthExceeded('{"a":[{"b":[1]}]}', 3)).toBe(11);
    expect(jsonDepthExceeded('[[1],[2],[[3]]]', 3)).toBe(-1);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeded('["[[[[", "{{{{"]', 1)).toBe(-1);
    expect(jsonDepthExceeded(String.raw`["\"[[[[", "x\\", [1]]`, 1)).toBe(18);
    expect(jsonDepthExceeded(String.raw`["\\\"[[[[\\", "\\"]`, 1)).toBe(-1);
    expect(jsonDepthExceeded(`[${JSON.stringify('[{'.repeat(500))}]`, 1)).toBe(-1);
  });

  it('never throws on text that is not JSON', () => {
    expect(jsonDepthExceeded(']]]]]]]]]]]]', 2)).toBe(-1);
    expect(jsonDepthExceeded('["unterminated [[[[[[[[', 2)).toBe(-1);
    expect(jsonDepthExceeded('', 2)).toBe(-1);
  });

  it('the default limit is MAX_JSON_DEPTH', () => {
    expect(jsonDepthExceeded(nested('[', ']', MAX_JSON_DEPTH))).toBe(-1);
    expect(jsonDepthExceeded(nested('[', ']', MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
  });

  it('stops at the first level too many, whatever follows', () => {
    expect(jsonDepthExceeded(nested('[', ']', 1_000_000))).toBe(MAX_JSON_DEPTH);
    // After the level too many, an unterminated string that a scan going on would reach (and answer -1 for).
    const text = `${'['.repeat(MAX_JSON_DEPTH + 1)}"${'x'.repeat(1_000_000)}`;
    expect(jsonDepthExceeded(text)).toBe(MAX_JSON_DEPTH);
  });
});

describe('parseJsonWithinLimits', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('parses what is within the limit', () => {
    expect(parseJsonWithinLimits('{"a":[1,{"b":null}]}')).toEqual({ ok: true, value: { a: [1, { b: null }] } });
  });

  it('refuses deep text before parsing it', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(parseJsonWithinLimits(nested('{"a":', '}', 101))).toEqual({
      ok: false,
      error: 'JSON nests deeper than 100 levels (at character 500); Kubernetes objects nest far less',
    });
    expect(parse).not.toHaveBeenCalled();
  });

  it('a syntax error is "malformed JSON" with the parser message', () => {
    expect(parseJsonWithinLimits('{"a":')).toEqual({ ok: false, error: expect.stringMatching(/^malformed JSON: .*JSON/) });
    expect(parseJsonWithinLimits('')).toEqual({ ok: false, error: expect.stringMatching(/^malformed JSON: /) });
  });

  it('any other parser failure (V8 throws RangeError when out of stack) is an error, not a throw', () => {
    vi.spyOn(JSON, 'parse').mockImplementation(() => {
      throw new RangeError('Maximum call stack size exceeded');
    });
    expect(parseJsonWithinLimits('[]')).toEqual({ ok: false, error: 'JSON could not be parsed: Maximum call stack size exceeded' });
  });
});
