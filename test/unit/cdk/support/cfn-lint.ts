import { spawnSync } from 'node:child_process';

export interface CfnLintFinding {
  readonly Level: string;
  readonly Message: string;
  readonly Rule: { readonly Id: string };
  readonly Filename: string;
}

/**
 * Runs the real cfn-lint on synthesized templates. A missing cfn-lint is a
 * failure with instructions, never a skip.
 */
export function runCfnLint(templateFiles: readonly string[]): CfnLintFinding[] {
  const result = spawnSync('cfn-lint', ['--format', 'json', '--', ...templateFiles], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) {
    throw new Error(`cfn-lint could not be run (${result.error.message}); install it with \`pip install cfn-lint\``);
  }
  // Exit codes are a bit mask (2 errors, 4 warnings, 8 informational); anything else is a crash.
  if (result.status === null || (result.status & ~(2 | 4 | 8)) !== 0) {
    throw new Error(`cfn-lint failed with status ${String(result.status)}: ${result.stderr}`);
  }
  return JSON.parse(result.stdout || '[]') as CfnLintFinding[];
}
