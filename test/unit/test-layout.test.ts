import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// test/unit mirrors the source tree: test/unit/<path>/<name>.test.ts tests
// <path>/<name>.ts, and <name>.<aspect>.test.ts one aspect of it, so a reader
// finds a file's tests (and a test's subject) without searching. Files
// directly in test/unit (like this one) are about the repository as a whole.
const root = join(import.meta.dirname, '..', '..');

function trackedTests(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', 'test/unit'], { cwd: root, encoding: 'utf8' });
  return out.split('\n').filter((file) => file.endsWith('.test.ts') && existsSync(join(root, file)));
}

function subjectCandidates(testFile: string): string[] {
  const relative = testFile.slice('test/unit/'.length, -'.test.ts'.length);
  const aspectless = relative.replace(/\.[^./]+$/, '');
  return [`${relative}.ts`, `${aspectless}.ts`];
}

describe('test/unit layout', () => {
  it('every unit test file names the source file it tests', () => {
    const tests = trackedTests().filter((file) => file.split('/').length > 3);
    expect(tests.length).toBeGreaterThan(50);
    const orphans = tests.filter((file) => !subjectCandidates(file).some((candidate) => existsSync(join(root, candidate))));
    expect(orphans).toEqual([]);
  });
});
