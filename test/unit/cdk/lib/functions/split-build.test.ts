import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { lambdaEsbuildOptions } from '../../../../../cdk/lib/functions/esbuild-options';
import { PROJECT_ROOT } from '../../../../../cdk/lib/functions/lambda-entries';
import type { SplitLambda } from '../../../../../cdk/lib/functions/split-build';
import { buildSplitLambda } from '../../../../../cdk/lib/functions/split-build';

// A small source tree of its own: buildSplitLambda re-roots the split's
// paths (written as if in this repository) into it, as the benchmarks do for
// an older checkout.
const root = mkdtempSync(join(tmpdir(), 'split-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FILES = {
  'text.ts': `export const tag = (s: string): string => \`[\${s}]\`;\n`,
  'counter.ts': `export class Counter { n = 0; }\n`,
  'entry.ts': `import { tag } from './text';\nexport const handler = async (): Promise<string> => { const lazy = await import('./lazy'); return tag(lazy.run()); };\n`,
  'lazy.ts': `import { tag } from './text';\nexport const run = (): string => tag('lazy');\n`,
};

/** The files of FILES with `overrides`, in a directory of their own under root. */
function tree(name: string, overrides: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries({ ...FILES, ...overrides })) writeFileSync(join(dir, file), text);
  return dir;
}

function splitOf(dir: string, shared: string[]): SplitLambda {
  const inRepo = (file: string) => join(PROJECT_ROOT, dir.slice(root.length + 1), file);
  return { entry: inRepo('entry.ts'), lazySpecifier: './lazy', lazyEntry: inRepo('lazy.ts'), lazyName: 'lazy', shared };
}

describe('buildSplitLambda', () => {
  it('writes the handler as one file that loads the lazy bundle by its file name at run time', async () => {
    const dir = tree('ok');
    const out = join(dir, 'out');
    const built = await buildSplitLambda(splitOf(dir, ['ok/text.ts']), out, lambdaEsbuildOptions(), root);
    expect(built.main).toBe('ok/out/index.mjs');
    expect(built.lazy).toBe('ok/out/lazy.mjs');
    const index = readFileSync(join(out, 'index.mjs'), 'utf8');
    expect(index).toContain('import("./lazy.mjs")');
    expect(index).not.toMatch(/from\s*["']\.\//);
    expect(readdirSync(out).filter((name) => name.endsWith('.mjs')).sort()).toEqual(['index.mjs', 'lazy.mjs']);
    const { handler } = (await import(pathToFileURL(join(out, 'index.mjs')).href)) as { handler: () => Promise<string> };
    await expect(handler()).resolves.toBe('[[lazy]]');
  });

  it('leaves the same specifier alone where it names another module', async () => {
    const dir = tree('elsewhere', {
      'entry.ts': `import { other } from './sub/other';\nexport const handler = async (): Promise<string[]> => [await other(), (await import('./lazy')).run()];\n`,
    });
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub', 'other.ts'), `export const other = async (): Promise<string> => (await import('./lazy')).name;\n`);
    writeFileSync(join(dir, 'sub', 'lazy.ts'), `export const name = 'sub/lazy';\n`);
    const out = join(dir, 'out');
    await buildSplitLambda(splitOf(dir, ['elsewhere/text.ts']), out, lambdaEsbuildOptions(), root);
    const { handler } = (await import(pathToFileURL(join(out, 'index.mjs')).href)) as { handler: () => Promise<string[]> };
    await expect(handler()).resolves.toEqual(['sub/lazy', '[lazy]']);
  });

  it('refuses a module both bundles would hold a copy of unless it is listed as shared', async () => {
    const dir = tree('copies', {
      'entry.ts': `import { Counter } from './counter';\nexport const handler = async (): Promise<unknown> => [new Counter(), await import('./lazy')];\n`,
      'lazy.ts': `import { Counter } from './counter';\nimport { tag } from './text';\nexport const run = (): unknown => [new Counter(), tag('x')];\n`,
    });
    await expect(buildSplitLambda(splitOf(dir, ['copies/text.ts']), join(dir, 'out'), lambdaEsbuildOptions(), root)).rejects.toThrow(/would each bundle a copy of copies\/counter\.ts/);
    await expect(buildSplitLambda(splitOf(dir, ['copies/text.ts', 'copies/counter.ts']), join(dir, 'out'), lambdaEsbuildOptions(), root)).resolves.toMatchObject({ lazy: 'copies/out/lazy.mjs' });
  });

  it('takes a package under the repository\'s node_modules as shared from a checkout that links to it', async () => {
    const dir = tree('checkout', {
      'entry.ts': `import { InvokeStore } from '@aws/lambda-invoke-store';\nexport const handler = async (): Promise<unknown> => [InvokeStore, await import('./lazy')];\n`,
      'lazy.ts': `import { InvokeStore } from '@aws/lambda-invoke-store';\nexport const run = (): unknown => InvokeStore;\n`,
    });
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'));
    // The checkout is the root here, as the scale benchmark builds an older commit.
    const split: SplitLambda = { entry: join(PROJECT_ROOT, 'entry.ts'), lazySpecifier: './lazy', lazyEntry: join(PROJECT_ROOT, 'lazy.ts'), lazyName: 'lazy', shared: ['node_modules/@aws/lambda-invoke-store/'] };
    await expect(buildSplitLambda(split, join(dir, 'out'), lambdaEsbuildOptions(), dir)).resolves.toMatchObject({ lazy: 'out/lazy.mjs' });
    await expect(buildSplitLambda({ ...split, shared: [] }, join(dir, 'out'), lambdaEsbuildOptions(), dir)).rejects.toThrow(/lambda-invoke-store/);
  });

  it('refuses a static import of the lazy module, which would load it at init', async () => {
    const dir = tree('static', { 'entry.ts': `import { run } from './lazy';\nexport const handler = async (): Promise<string> => run();\n` });
    await expect(buildSplitLambda(splitOf(dir, ['static/text.ts']), join(dir, 'out'), lambdaEsbuildOptions(), root)).rejects.toThrow(/\.\/lazy must be loaded with import\(\), not import-statement/);
  });
});
