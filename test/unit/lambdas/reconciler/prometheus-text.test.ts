import { describe, expect, it } from 'vitest';
import { parsePrometheusText, PrometheusParseError } from '../../../../lambdas/reconciler/prometheus-text';

describe('parsePrometheusText', () => {
  it('reads samples with labels, skips comments and blank lines, ignores timestamps', () => {
    const text = [
      '# HELP scheduler_pending_pods [STABLE] Number of pending pods',
      '# TYPE scheduler_pending_pods gauge',
      'scheduler_pending_pods{queue="active"} 2',
      '',
      'scheduler_schedule_attempts_total{profile="gpu-scheduler",result="scheduled"} 17 1700000000000',
      'process_start_time_seconds 1.7e+09',
      'go_gc_duration_seconds{quantile="1" } 0.5',
    ].join('\n');
    expect(parsePrometheusText(text)).toEqual([
      { name: 'scheduler_pending_pods', labels: { queue: 'active' }, value: 2 },
      { name: 'scheduler_schedule_attempts_total', labels: { profile: 'gpu-scheduler', result: 'scheduled' }, value: 17 },
      { name: 'process_start_time_seconds', labels: {}, value: 1.7e9 },
      { name: 'go_gc_duration_seconds', labels: { quantile: '1' }, value: 0.5 },
    ]);
  });

  it('unescapes label values and keeps commas, braces and spaces inside them', () => {
    const [sample] = parsePrometheusText('m{a="x\\"y\\\\z\\n", b="{1, 2}",} 3\n');
    expect(sample?.labels).toEqual({ a: 'x"y\\z\n', b: '{1, 2}' });
    expect(sample?.value).toBe(3);
  });

  it('reads +Inf, -Inf and NaN', () => {
    const values = parsePrometheusText('a_bucket{le="+Inf"} +Inf\nb -Inf\nc NaN').map((s) => s.value);
    expect(values[0]).toBe(Number.POSITIVE_INFINITY);
    expect(values[1]).toBe(Number.NEGATIVE_INFINITY);
    expect(values[2]).toBeNaN();
  });

  it.each([
    ['m{a="x"} ', /line 1: expected a value/],
    ['m{a="x} 1', /not closed/],
    ['m{a=x} 1', /no quoted value/],
    ['m{a="x" b="y"} 1', /expected , or }/],
    ['m one', /bad value one/],
    ['{a="x"} 1', /no metric name/],
    ['ok 1\nm 1 2 3', /line 2/],
  ])('refuses %j', (text, message) => {
    expect(() => parsePrometheusText(text)).toThrow(PrometheusParseError);
    expect(() => parsePrometheusText(text)).toThrow(message);
  });
});
