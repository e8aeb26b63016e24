import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** Tracked (or new) TypeScript files outside test/ and node_modules. */
function sourceOutsideTest(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts'], { cwd: root, encoding: 'utf8' });
  return out.split('\n').filter((file) => file !== '' && !file.startsWith('test/') && existsSync(join(root, file)));
}

/** A module specifier of the test runner's API: `vitest` or one of its subpaths, but not its config helper. */
const testApiImport = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]vitest(?:\/(?!config['"])[^'"]*)?['"]/;

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

  // Helpers that use the test runner (hooks, inject, failure reports) are
  // test code: they live under test/ (e2e ones in test/e2e/support/), so
  // nothing npm start, the benchmarks or the Lambdas load pulls in vitest.
  it('only files under test/ import the test runner', () => {
    expect(testApiImport.test("import { inject } from 'vitest';")).toBe(true);
    expect(testApiImport.test("import { defineConfig } from 'vitest/config';")).toBe(false);
    const files = sourceOutsideTest();
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((file) => testApiImport.test(readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });
});
