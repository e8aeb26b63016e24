import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// local/ is a house of rooms: each folder says in its README.md what lives
// there, only a few files stay at the top, and no two files need each other.
const root = join(import.meta.dirname, '..', '..');
const local = join(root, 'local');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every module specifier of `import … from`, `export … from`, `import '…'` and `import('…')`. */
function moduleSpecifiers(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((match) => match[1]!);
}

/** The local/ file a relative specifier names, if it names one. */
function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.mts`, join(base, 'index.ts')].find((candidate) => candidate.startsWith(local) && existsSync(candidate) && !candidate.endsWith(local) && /\.(ts|mts)$/.test(candidate));
}

/** The import graph of local/ (type-only imports included: they tie files as much). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(local)) {
    const targets = moduleSpecifiers(readFileSync(file, 'utf8')).flatMap((specifier) => resolveLocal(file, specifier) ?? []);
    graph.set(relative(root, file), targets.map((target) => relative(root, target)));
  }
  return graph;
}

/** Each cycle found by a depth-first walk, as the files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push(path.slice(path.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('local/ layout', () => {
  it('keeps at most 12 files at its top; the rest live in rooms', () => {
    const files = readdirSync(local, { withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeLessThanOrEqual(12);
  });

  it('each room says in its README.md what lives there, and local/README.md names every room', () => {
    const rooms = readdirSync(local, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(rooms.length).toBeGreaterThan(5);
    expect(rooms.filter((room) => !existsSync(join(local, room, 'README.md')))).toEqual([]);
    const overview = readFileSync(join(local, 'README.md'), 'utf8');
    expect(rooms.filter((room) => !overview.includes(`\`${room}/\``))).toEqual([]);
  });

  it('finds the cycles it looks for', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['b']], ['b', []], ['c', ['b']]]))).toEqual([]);
  });

  it('has no import cycle between its files', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph)).toEqual([]);
  });

  it('imports nothing from test/: the tests use the harness, never the reverse', () => {
    const crossings = sourceFiles(local).flatMap((file) =>
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.') && relative(root, resolve(dirname(file), specifier)).startsWith('test/'))
        .map((specifier) => `${relative(root, file)} → ${specifier}`),
    );
    expect(crossings).toEqual([]);
  });
});
