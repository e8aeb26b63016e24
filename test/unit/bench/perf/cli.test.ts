import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from '../../../../cli/command-line';
import { BENCH_CLI, benchPlan } from '../../../../bench/perf/cli';
import { SECTION_NAMES, SECTIONS } from '../../../../bench/perf/sections';

const plan = (...argv: string[]) => benchPlan(parseCommandLine(BENCH_CLI, argv));

describe('npm run bench: the command dispatches from the section table', () => {
  it('takes each option from the one section that owns it, and lists every section in --only', () => {
    const owners = new Map<string, string[]>();
    for (const name of SECTION_NAMES) for (const option of Object.keys(SECTIONS[name].options)) owners.set(option, [...(owners.get(option) ?? []), name]);
    expect([...owners].filter(([, names]) => names.length > 1)).toEqual([]);
    expect(Object.keys(BENCH_CLI.options).sort()).toEqual(['only', 'out', 'json', 'record', 'help', ...owners.keys()].sort());
    for (const name of SECTION_NAMES) expect(BENCH_CLI.options.only.description).toContain(name);
  });

  it('runs every section by default; --only picks sections and groups, in the order given', () => {
    expect([...plan().only]).toEqual(SECTION_NAMES);
    expect([...plan('--only', 'scale, extender').only]).toEqual(['scale', 'extender']);
    expect([...plan('--only', 'cluster').only]).toEqual(['reconciler', 'labeler']);
    expect(plan().out).toBe(resolve('.bench-out/bench.json'));
    expect([plan().json, plan('--only', 'scale-from-zero', '--json').json]).toEqual([false, true]);
    expect([...plan().runs.keys()]).toEqual(SECTION_NAMES);
    expect(plan().record).toBe(false);
    expect(plan('--only', 'scale', '--record').record).toBe(true);
  });

  it('the labeler runs before the reconciler, so the reconciler meets the labeler\'s nodes as it always has', () => {
    expect(SECTION_NAMES.indexOf('labeler')).toBeLessThan(SECTION_NAMES.indexOf('reconciler'));
    expect(SECTION_NAMES.filter((name) => SECTIONS[name].onCluster === true)).toEqual(['labeler', 'reconciler', 'e2e']);
  });

  it('checks every section\'s options before anything runs, whichever sections are picked', () => {
    expect(() => plan('--only', 'nothing')).toThrow(new UsageError('unknown section "nothing"'));
    expect(() => plan('--only', 'constructor')).toThrow(UsageError);
    expect(() => plan('--only', 'bundles', '--iterations', '0')).toThrow(new UsageError('--iterations must be a positive integer, got 0'));
    expect(() => plan('--scale-pods', '1.5')).toThrow(new UsageError('--scale-pods must be a positive integer, got 1.5'));
    expect(() => plan('--scale-vcpu', 'lots')).toThrow(UsageError);
    expect(() => plan('--scale-vcpu', '0.5')).not.toThrow();
  });
});
