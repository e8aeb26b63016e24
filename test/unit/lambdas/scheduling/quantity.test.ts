import { describe, expect, it } from 'vitest';
import { parseBytes, parseCount, parseCpuMilli, parseMiB, parseQuantity } from '../../../../lambdas/scheduling';

describe('parseQuantity', () => {
  it.each([
    ['1', 1],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['2k', 2000],
    ['40Gi', 40 * 2 ** 30],
    ['1Ki', 1024],
    ['3M', 3e6],
    ['2e3', 2000],
    ['1E', 1e18],
    ['-2', -2],
    ['+7', 7],
    ['100n', 100e-9],
    [' 8 ', 8],
  ])('%s = %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 12);
  });

  it.each(['', 'abc', '1x', '1 Gi', 'Gi', '1.2.3', '--1', '1gi', '1e', 'NaN', 'Infinity'])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
    // Asked again (answered from what was read before): still not a quantity.
    expect(parseQuantity(text)).toBeUndefined();
  });

  it('answers a text read before as the first time, also once thousands of other texts have come and gone, and for long texts', () => {
    const first = ['100m', '128Mi', '1', 'bad', `${'9'.repeat(40)}Ki`].map((t) => parseQuantity(t));
    expect(first).toEqual([0.1, 128 * 2 ** 20, 1, undefined, Number('9'.repeat(40)) * 1024]);
    for (let i = 0; i < 5000; i++) expect(parseQuantity(`${i}Mi`)).toBe(i * 2 ** 20);
    expect(['100m', '128Mi', '1', 'bad', `${'9'.repeat(40)}Ki`].map((t) => parseQuantity(t))).toEqual(first);
  });
});

describe('typed readers', () => {
  it('cpu rounds up to whole millicores', () => {
    expect(parseCpuMilli('100m')).toBe(100);
    expect(parseCpuMilli('0.1')).toBe(100);
    expect(parseCpuMilli('2')).toBe(2000);
    expect(parseCpuMilli('1.0005')).toBe(1001);
    expect(parseCpuMilli('x')).toBeUndefined();
  });

  it('memory in bytes', () => {
    expect(parseBytes('1Gi')).toBe(2 ** 30);
    expect(parseBytes('1G')).toBe(1e9);
    expect(parseBytes('129e6')).toBe(129e6);
  });

  it('counts must be whole', () => {
    expect(parseCount('8')).toBe(8);
    expect(parseCount('1k')).toBe(1000);
    expect(parseCount('0.5')).toBeUndefined();
    expect(parseCount('500m')).toBeUndefined();
  });

  it('GPU memory: a bare number is MiB, a quantity is bytes converted to MiB', () => {
    expect(parseMiB('40960')).toBe(40960);
    expect(parseMiB('40Gi')).toBe(40960);
    expect(parseMiB('512Mi')).toBe(512);
    expect(parseMiB('1G')).toBe(954);
    expect(parseMiB('-1')).toBe(-1);
    expect(parseMiB('abc')).toBeUndefined();
    expect(parseMiB('40GB')).toBeUndefined();
  });
});
