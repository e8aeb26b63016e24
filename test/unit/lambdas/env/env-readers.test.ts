import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  envBoolean,
  envDuration,
  envEnum,
  envInt,
  envList,
  envNumber,
  envOptionalString,
  envString,
  isEnvSet,
  parseDuration,
} from '../../../../lambdas/env';

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('envString', () => {
  it('returns the trimmed value', () => {
    expect(envString({ A: '  x  ' }, 'A')).toBe('x');
  });
  it('treats empty and blank as unset', () => {
    expect(envString({ A: '   ' }, 'A', { default: 'd' })).toBe('d');
    expect(isEnvSet({ A: '' }, 'A')).toBe(false);
    expect(envOptionalString({ A: '' }, 'A')).toBeUndefined();
  });
  it('names the variable when a required one is missing', () => {
    const error = thrown(() => envString({}, 'CLUSTER_NAME'));
    expect(error.variable).toBe('CLUSTER_NAME');
    expect(error.value).toBeUndefined();
    expect(error.message).toContain('CLUSTER_NAME is required');
  });
  it('checks the whole value against the pattern', () => {
    expect(envString({ A: 'abc' }, 'A', { pattern: /[a-z]+/ })).toBe('abc');
    const error = thrown(() => envString({ A: 'abc!' }, 'A', { pattern: /[a-z]+/, description: 'lowercase letters' }));
    expect(error.message).toBe('A="abc!" is invalid (allowed: lowercase letters)');
  });
});

describe('envInt', () => {
  it('parses integers within bounds', () => {
    expect(envInt({ N: '42' }, 'N', { min: 1, max: 100 })).toBe(42);
    expect(envInt({ N: '-3' }, 'N')).toBe(-3);
    expect(envInt({}, 'N', { default: 7 })).toBe(7);
  });
  it.each(['4.5', 'abc', '1e3', '12abc', '99999999999999999999'])('rejects %s', (value) => {
    const error = thrown(() => envInt({ N: value }, 'N'));
    expect(error.variable).toBe('N');
    expect(error.value).toBe(value);
    expect(error.allowed).toContain('an integer');
  });
  it('rejects values out of range and says the range', () => {
    const error = thrown(() => envInt({ N: '0' }, 'N', { min: 1, max: 64 }));
    expect(error.message).toBe('N="0" is invalid (allowed: an integer, 1..64)');
    expect(() => envInt({ N: '65' }, 'N', { min: 1, max: 64 })).toThrow(ConfigError);
  });
});

describe('envNumber', () => {
  it('parses decimals and rejects non-finite text', () => {
    expect(envNumber({ W: '0.7' }, 'W', { min: 0, max: 1 })).toBe(0.7);
    expect(() => envNumber({ W: 'NaN' }, 'W')).toThrow(ConfigError);
    expect(() => envNumber({ W: 'Infinity' }, 'W')).toThrow(ConfigError);
    expect(() => envNumber({ W: '1.5' }, 'W', { max: 1 })).toThrow(/W="1.5"/);
  });
});

describe('envDuration', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['1d', 86_400_000],
  ])('parses %s', (text, ms) => {
    expect(envDuration({ D: text }, 'D')).toBe(ms);
  });
  it.each(['300', '5 minutes', '-5m', 'm', '5x', ''])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
  it('requires a unit and enforces bounds', () => {
    expect(thrown(() => envDuration({ D: '300' }, 'D')).allowed).toContain('30s');
    expect(() => envDuration({ D: '10s' }, 'D', { minMs: 60_000 })).toThrow(/D="10s"/);
    expect(envDuration({}, 'D', { default: 60_000 })).toBe(60_000);
  });
});

describe('envBoolean', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['No', false],
    ['off', false],
  ])('parses %s', (text, value) => {
    expect(envBoolean({ B: text }, 'B')).toBe(value);
  });
  it('rejects other words', () => {
    expect(thrown(() => envBoolean({ B: 'maybe' }, 'B')).message).toContain('B="maybe" is invalid');
    expect(envBoolean({}, 'B', { default: false })).toBe(false);
  });
});

describe('envList', () => {
  it('splits, trims and drops empty items', () => {
    expect(envList({ L: ' a, b ,,c ' }, 'L')).toEqual(['a', 'b', 'c']);
    expect(envList({}, 'L', { default: [] })).toEqual([]);
  });
  it('checks items against the allowed set and pattern', () => {
    expect(envList({ L: 'x,y' }, 'L', { allowed: ['x', 'y', 'z'] })).toEqual(['x', 'y']);
    expect(() => envList({ L: 'x,w' }, 'L', { allowed: ['x', 'y'] })).toThrow(/allowed: a comma-separated list of \[x, y\]/);
    expect(() => envList({ L: 'ok,NOT_OK' }, 'L', { itemPattern: /[a-z]+/ })).toThrow(ConfigError);
  });
});

describe('envEnum', () => {
  it('accepts only listed words', () => {
    expect(envEnum({ E: 'debug' }, 'E', ['debug', 'info'] as const)).toBe('debug');
    expect(envEnum({}, 'E', ['debug', 'info'] as const, { default: 'info' })).toBe('info');
    expect(thrown(() => envEnum({ E: 'DEBUG' }, 'E', ['debug', 'info'] as const)).allowed).toBe('one of [debug, info]');
  });
});
