import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../../cli/command-line';
import { STRESS_CLI, stressPlan } from '../../../stress/stress-cli';

const plan = (argv: string[]) => stressPlan(parseCommandLine(STRESS_CLI, argv));

describe('npm run test:stress options', () => {
  it('defaults to one round of the whole e2e project against two busy loops', () => {
    expect(plan([])).toEqual({ rounds: 1, loops: 2, files: [] });
  });

  it('reads rounds, loops and a comma-separated file list', () => {
    expect(plan(['--rounds', '3', '--loops', '0', '--files', 'test/e2e/a.test.ts, test/e2e/b.test.ts'])).toEqual({
      rounds: 3,
      loops: 0,
      files: ['test/e2e/a.test.ts', 'test/e2e/b.test.ts'],
    });
  });

  it('refuses a round count below 1, a fraction, and an empty file list', () => {
    expect(() => plan(['--rounds', '0'])).toThrow(/--rounds needs a whole number ≥ 1/);
    expect(() => plan(['--loops', '1.5'])).toThrow(/--loops needs a whole number ≥ 0/);
    expect(() => plan(['--files', ' , '])).toThrow(/--files needs at least one test file/);
  });
});
