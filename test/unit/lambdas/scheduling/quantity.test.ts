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
