import { describe, expect, it } from 'vitest';
import { summarizeRound, type VitestJsonReport } from '../../../stress/round-summary';

function report(files: VitestJsonReport['testResults']): VitestJsonReport {
  const tests = files.flatMap((file) => file.assertionResults);
  return {
    numTotalTests: tests.length,
    numPassedTests: tests.filter((test) => test.status === 'passed').length,
    numFailedTests: tests.filter((test) => test.status === 'failed').length,
    testResults: files,
  };
}

describe('summarizeRound', () => {
  it('passes a round whose tests all passed and vitest exited 0', () => {
    const summary = summarizeRound(1, 0, 61.4, report([{ name: 'a.test.ts', status: 'passed', assertionResults: [{ fullName: 'a works', status: 'passed' }] }]));
    expect(summary).toEqual({ passed: true, lines: ['round 1: passed, 1 files, 1/1 tests passed, 0 failed, 61 s'] });
  });

  it('names each failed test, and a file that failed in a hook with no failed test', () => {
    const summary = summarizeRound(2, 1, 10, report([
      { name: 'a.test.ts', status: 'failed', assertionResults: [{ fullName: 'a works', status: 'failed' }, { fullName: 'a also', status: 'passed' }] },
      { name: 'b.test.ts', status: 'failed', assertionResults: [{ fullName: 'b works', status: 'skipped' }] },
    ]));
    expect(summary.passed).toBe(false);
    expect(summary.lines).toEqual([
      'round 2: FAILED, 2 files, 1/3 tests passed, 1 failed, 10 s',
      '  failed: a.test.ts: a works',
      '  failed: b.test.ts: (set-up or tear-down)',
    ]);
  });

  it('fails a round with no report or a non-zero exit even if the report shows no failure', () => {
    expect(summarizeRound(3, 1, 5, undefined)).toEqual({ passed: false, lines: ['round 3: no report (vitest exited 1) after 5 s'] });
    expect(summarizeRound(3, 1, 5, report([])).passed).toBe(false);
  });
});
