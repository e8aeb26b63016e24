import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Which of our files may import which. Arrows point inward: the local hosts
// (npm start, npm run extender, the e2e tests, the benchmarks) wire the
// Lambdas' code, never the reverse; the scheduling library imports nothing
// of ours; no two files, and no two rooms of cdk/lib, import each other, so
// every folder can be read (and every module loaded) from the bottom up.
const root = join(import.meta.dirname, '..', '..');

/** Our TypeScript sources, repository-relative with `/`: tracked and new files, as git sees them. */
function ourSources(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts'], { cwd: root, encoding: 'utf8' });
  return out.split('\n').filter((file) => file.endsWith('.ts') && !file.startsWith('node_modules/'));
}

/** Every module specifier of `import … from`, `export … from`, `import '…'` and `import('…')`, read by TypeScript's own scanner (template strings are not imports). */
function moduleSpecifiers(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

const COMPILER_OPTIONS: ts.CompilerOptions = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, resolveJsonModule: true };

/** file → the files of ours it imports, resolved as tsc resolves them (tsconfig.json's Bundler resolution). */
function importGraph(files: readonly string[]): Map<string, Set<string>> {
  const ours = new Set(files);
  const cache = ts.createModuleResolutionCache(root, (name) => name);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const absolute = join(root, file);
    const targets = new Set<string>();
    for (const specifier of moduleSpecifiers(readFileSync(absolute, 'utf8'))) {
      const resolved = ts.resolveModuleName(specifier, absolute, COMPILER_OPTIONS, ts.sys, cache).resolvedModule;
      if (resolved === undefined || resolved.isExternalLibraryImport) continue;
      const target = relative(root, resolved.resolvedFileName).split(sep).join('/');
      if (ours.has(target)) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/**
 * One cycle per group of nodes that reach each other (Tarjan's strongly
 * connected components), each written `a → b → … → a` from its
 * alphabetically first node, and the whole group when it is larger, so a
 * failure names the imports to undo.
 */
function importCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components
    .map((component) => {
      const path = cyclePath(graph, new Set(component), component[0]!);
      const more = component.length > path.length - 1 ? ` (one of the cycles among ${component.join(', ')})` : '';
      return `${path.join(' → ')}${more}`;
    })
    .sort();
}

/** A shortest path from `start` back to itself inside `members` (breadth first). */
function cyclePath(graph: ReadonlyMap<string, ReadonlySet<string>>, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

/** The room of a cdk/lib file: its folder right under cdk/lib, or the file itself when it sits there. */
function cdkRoom(file: string): string {
  return file.slice('cdk/lib/'.length).split('/')[0]!;
}

/** The rooms of cdk/lib and which import which, each arrow with one of the file imports that make it. */
function cdkRoomGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): { rooms: Map<string, Set<string>>; evidence: Map<string, string> } {
  const rooms = new Map<string, Set<string>>();
  const evidence = new Map<string, string>();
  for (const [file, targets] of graph) {
    if (!file.startsWith('cdk/lib/')) continue;
    const from = cdkRoom(file);
    if (!rooms.has(from)) rooms.set(from, new Set());
    for (const target of targets) {
      if (!target.startsWith('cdk/lib/')) continue;
      const to = cdkRoom(target);
      if (to === from) continue;
      rooms.get(from)!.add(to);
      if (!evidence.has(`${from} → ${to}`)) evidence.set(`${from} → ${to}`, `${file} imports ${target}`);
    }
  }
  return { rooms, evidence };
}

describe('import boundaries', () => {
  const files = ourSources();
  const graph = importGraph(files);
  const lambdaFolders = new Set(files.filter((file) => /^lambdas\/[^/]+\/handler\.ts$/.test(file)).map((file) => file.split('/')[1]!));

  /** `file → target` for every import of a file under `from` that `crosses` rejects. */
  const crossings = (from: string, crosses: (target: string) => boolean): string[] =>
    [...graph].filter(([file]) => file.startsWith(from)).flatMap(([file, targets]) => [...targets].filter(crosses).map((target) => `${file} → ${target}`));

  it('finds the imports it checks, and resolves them as tsc does', () => {
    expect(moduleSpecifiers(`import type { A } from './a';\nexport { B } from "../b";\nimport './c';\nconst d = await import('../d');\nconst e = \`import { E } from './e';\`;`)).toEqual(['./a', '../b', './c', '../d']);
    expect(files.length).toBeGreaterThan(500);
    expect(graph.get('lambdas/scheduling/index.ts')).toContain('lambdas/scheduling/keys.ts');
    expect(graph.get('lambdas/extender/handler.ts')?.size).toBeGreaterThan(0);
  });

  it('names each import cycle by its files, once per cycle', () => {
    const toy = new Map<string, Set<string>>([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set(['e'])],
      ['e', new Set(['d'])],
      ['f', new Set(['f', 'a'])],
    ]);
    expect(importCycles(toy)).toEqual(['a → b → c → a', 'd → e → d', 'f → f']);
    expect(importCycles(new Map([['a', new Set(['b'])], ['b', new Set<string>()]]))).toEqual([]);
  });

  it('no two of our files import each other, directly or through others', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it("no two of cdk/lib's rooms (its folders, and the files beside them) import each other", () => {
    const { rooms, evidence } = cdkRoomGraph(graph);
    expect([...rooms.keys()]).toEqual(expect.arrayContaining(['access', 'cluster', 'common', 'functions', 'scheduler', 'gpu-scheduling-stack.ts']));
    const named = importCycles(rooms).map((cycle) => {
      const steps = cycle.replace(/ \(.*$/, '').split(' → ');
      return [cycle, ...steps.slice(1).map((to, i) => `  ${evidence.get(`${steps[i]} → ${to}`)}`)].join('\n');
    });
    expect(named).toEqual([]);
  });

  it('the scheduling library (lambdas/scheduling/) imports nothing of ours outside itself', () => {
    expect(crossings('lambdas/scheduling/', (target) => !target.startsWith('lambdas/scheduling/'))).toEqual([]);
  });

  // lambdas/observability is shared by every Lambda and by the CDK stack (the
  // metric catalog): it must not depend on any one Lambda, or a Lambda's bundle
  // and the stack would pull in another's code.
  it('lambdas/observability imports nothing from a Lambda folder', () => {
    expect([...lambdaFolders]).toEqual(expect.arrayContaining(['extender', 'labeler', 'reconciler', 'gpu-instance-types']));
    expect(crossings('lambdas/observability/', (target) => lambdaFolders.has(target.split('/')[1]!) && target.startsWith('lambdas/'))).toEqual([]);
  });

  // Nothing only a developer's machine has ends up in a Lambda's bundle.
  it('lambdas/ imports nothing from local/, bench/, simulator/, charts/, cli/, cdk/ or test/', () => {
    const outside = ['local', 'bench', 'simulator', 'charts', 'cli', 'cdk', 'test'];
    expect(crossings('lambdas/', (target) => outside.includes(target.split('/')[0]!))).toEqual([]);
  });
});
