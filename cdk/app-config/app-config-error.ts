/** One missing or invalid value, under its full dotted key. */
export interface ConfigProblem {
  readonly key: string;
  readonly problem: string;
}

/**
 * Configuration that is missing or invalid. Each problem names the key by its
 * full dotted path and says what is allowed, and all of them come at once, so
 * a failed `cdk synth` tells the operator every line of their config to fix.
 */
export class AppConfigError extends Error {
  override readonly name = 'AppConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(
    readonly key: string,
    readonly problem: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ key, problem }, ...more];
    super(problems.length === 1 ? `invalid configuration: ${key}: ${problem}` : `invalid configuration (${problems.length} problems):\n${listProblems(problems, '  ')}`);
    this.problems = problems;
  }

  /** Every problem as `key: problem`, one a line. */
  get detail(): string {
    return listProblems(this.problems, '');
  }
}

function listProblems(problems: readonly ConfigProblem[], indent: string): string {
  return problems.map(({ key, problem }) => `${indent}${key}: ${problem}`).join('\n');
}
