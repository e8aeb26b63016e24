import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// lambdas/observability is shared by every Lambda and by the CDK stack (the
// metric catalog): it must not depend on any one Lambda, or a Lambda's bundle
// and the stack would pull in another's code.
const root = join(import.meta.dirname, '..', '..');
const lambdas = join(root, 'lambdas');

/** The folders of the Lambdas: those with a handler.ts entry point. */
function lambdaFolders(): string[] {
  return readdirSync(lambdas, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(lambdas, entry.name, 'handler.ts')))
    .map((entry) => entry.name);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier of `import … from`, `export … from`, `import '…'` and `import('…')`. */
function moduleSpecifiers(source: string): string[] {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((match) => match[1]!);
}

describe('import boundaries', () => {
  it('finds the imports it checks', () => {
    expect(moduleSpecifiers(`import type { A } from './a';\nexport { B } from "../b";\nimport './c';\nconst d = await import('../d');`)).toEqual(['./a', '../b', './c', '../d']);
  });

  it('lambdas/observability imports nothing from a Lambda folder', () => {
    const folders = lambdaFolders();
    expect(folders).toEqual(expect.arrayContaining(['extender', 'labeler', 'reconciler', 'gpu-instance-types']));
    const files = sourceFiles(join(lambdas, 'observability'));
    expect(files.length).toBeGreaterThan(0);
    const crossings = files.flatMap((file) =>
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => relative(lambdas, resolve(dirname(file), specifier)))
        .filter((target) => folders.includes(target.split(sep)[0]!))
        .map((target) => `${relative(root, file)} → lambdas/${target}`),
    );
    expect(crossings).toEqual([]);
  });

  // Arrows point inward: the local hosts (npm start, npm run extender, the
  // e2e tests, the benchmarks) wire the Lambdas' code, never the reverse, so
  // nothing only a developer's machine has ends up in a Lambda's bundle.
  it('lambdas/ imports nothing from local/, bench/, simulator/, cdk/ or test/', () => {
    const outside = ['local', 'bench', 'simulator', 'cdk', 'test'];
    const crossings = sourceFiles(lambdas).flatMap((file) =>
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => relative(root, resolve(dirname(file), specifier)))
        .filter((target) => outside.includes(target.split(sep)[0]!))
        .map((target) => `${relative(root, file)} → ${target}`),
    );
    expect(crossings).toEqual([]);
  });
});
