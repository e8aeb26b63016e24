// One stress round's outcome from vitest's JSON report: what the stress CLI
// prints, and whether the round passed.

/** The part of vitest's JSON reporter output read here. */
export interface VitestJsonReport {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  testResults: {
    name: string;
    status: string;
    assertionResults: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

export interface RoundSummary {
  passed: boolean;
  lines: string[];
}

/** A round passed when vitest exited 0 and its report names no failed test. */
export function summarizeRound(round: number, exitCode: number, seconds: number, report: VitestJsonReport | undefined): RoundSummary {
  const time = `${Math.round(seconds)} s`;
  if (!report) return { passed: false, lines: [`round ${round}: no report (vitest exited ${exitCode}) after ${time}`] };
  const failedTests = report.testResults.flatMap((file) =>
    file.assertionResults.filter((test) => test.status === 'failed').map((test) => `${file.name}: ${test.fullName}`),
  );
  // A file can fail with no failed test (a hook threw): name it too.
  const failedFiles = report.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed')).map((file) => `${file.name}: (set-up or tear-down)`);
  const failures = [...failedTests, ...failedFiles];
  const passed = exitCode === 0 && failures.length === 0;
  const head = `round ${round}: ${passed ? 'passed' : 'FAILED'}, ${report.testResults.length} files, ${report.numPassedTests}/${report.numTotalTests} tests passed, ${report.numFailedTests} failed, ${time}`;
  return { passed, lines: [head, ...failures.map((failure) => `  failed: ${failure}`)] };
}
