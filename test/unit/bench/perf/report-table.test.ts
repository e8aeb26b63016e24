import { describe, expect, it } from 'vitest';
import { formatTable, ms, verdict } from '../../../../bench/perf/report-table';

describe('formatTable', () => {
  it('prints an aligned Markdown table with a Met column from ok', () => {
    const table = formatTable([
      { section: 'Machine', measurement: 'CPU', value: 'Xeon × 2' },
      { section: 'Extender', measurement: 'NodeNames 5,000 nodes', value: '4.10 ms', target: '< 5 ms', ok: true },
      { section: 'Bundle', measurement: 'extender', value: '1907 KiB', target: '< 500 KB', ok: false },
    ]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^\| Section +\| Measurement +\| Value +\| Target +\| Met \|$/);
    expect(lines[1]).toMatch(/^\|-+\|-+\|-+\|-+\|-+\|$/);
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(lines[3]).toContain('| yes |');
    expect(lines[4]).toContain('| NO  |');
    expect(lines[2]?.trimEnd().endsWith('|     |')).toBe(true);
  });

  it('escapes pipes so a value cannot break the table', () => {
    const table = formatTable([{ section: 'S', measurement: 'a|b', value: 'x\ny' }]);
    expect(table).toContain('a\\|b');
    expect(table).not.toContain('x\ny');
  });
});

describe('formatting', () => {
  it('keeps three significant figures for milliseconds', () => {
    expect(ms(1.23456)).toBe('1.23 ms');
    expect(ms(12.345)).toBe('12.3 ms');
    expect(ms(1234.5)).toBe('1235 ms');
  });

  it('verdict is empty without a target', () => {
    expect(verdict(undefined)).toBe('');
    expect(verdict(true)).toBe('yes');
    expect(verdict(false)).toBe('NO');
  });
});
