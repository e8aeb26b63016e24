import { describe, expect, it } from 'vitest';
import { median, percentile, summarise } from '../../../../bench/perf/stats';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('returns an observed sample: p99 of 1..100 is 99, p100 is the max, p0 the min', () => {
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile(hundred, 50)).toBe(50);
  });

  it('with few samples p99 is the largest', () => {
    expect(percentile([1, 2, 3], 99)).toBe(3);
    expect(percentile([7], 99)).toBe(7);
  });

  it('refuses no samples and out-of-range percentiles', () => {
    expect(() => percentile([], 50)).toThrow(/no samples/);
    expect(() => percentile([1], 101)).toThrow(/0\.\.100/);
    expect(() => percentile([1], Number.NaN)).toThrow(/0\.\.100/);
  });
});

describe('median', () => {
  it('takes the middle of unsorted input, and the mean of the two middles for an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('does not reorder its input', () => {
    const input = [3, 1, 2];
    median(input);
    expect(input).toEqual([3, 1, 2]);
  });
});

describe('summarise', () => {
  it('reports count, median, p99, min and max', () => {
    const values = [...Array.from({ length: 99 }, () => 1), 50];
    expect(summarise(values)).toEqual({ samples: 100, median: 1, p99: 1, min: 1, max: 50 });
    expect(summarise([...values, 60]).p99).toBe(50);
  });
});
