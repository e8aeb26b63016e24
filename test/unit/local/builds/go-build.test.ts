// The build routine on a tiny template module with the real go command: a
// main package of its own, and a file copied from the module it pins
// (sigs.k8s.io/yaml, which the Kubernetes build needs too), into a cache root
// of the test's own.
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildArgs, ensureGoBuild, findGoBuild, pinnedToDeployed, pinOf, type GoBuildSpec } from '../../../../local/builds/go-build';

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const PINNED = 'sigs.k8s.io/yaml v1.6.0';

let root = '';
let moduleDir = '';
let previousCache: string | undefined;

function spec(change: Partial<GoBuildSpec> = {}): GoBuildSpec {
  return { name: 'tiny', purpose: 'a test module', moduleDir, module: 'sigs.k8s.io/yaml', packages: ['./hello'], copies: [{ from: 'LICENSE', to: 'copied/LICENSE' }], ...change };
}

const writeMain = (body: string): void => writeFileSync(join(moduleDir, 'hello', 'main.go'), `package main\n\nfunc main() {${body}}\n`);
const cacheEntries = (): string[] => readdirSync(join(root, 'cache')).sort();

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'go-build-'));
  moduleDir = join(root, 'module');
  mkdirSync(join(moduleDir, 'hello'), { recursive: true });
  writeFileSync(join(moduleDir, 'go.mod'), `module example.test/tiny\n\ngo 1.25.0\n\nrequire ${PINNED}\n`);
  const sums = readFileSync(join(repo, 'local/builds/go-modules/kube-binaries/go.sum'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${PINNED} `) || line.startsWith(`${PINNED}/go.mod `));
  writeFileSync(join(moduleDir, 'go.sum'), `${sums.join('\n')}\n`);
  writeMain('');
  previousCache = process.env.EKS_GPU_SCHEDULING_CACHE;
  process.env.EKS_GPU_SCHEDULING_CACHE = join(root, 'cache');
});

afterAll(() => {
  if (previousCache === undefined) delete process.env.EKS_GPU_SCHEDULING_CACHE;
  else process.env.EKS_GPU_SCHEDULING_CACHE = previousCache;
  rmSync(root, { recursive: true, force: true });
});

describe('pinOf and buildArgs', () => {
  it('reads the pinned version from go.mod, and the toolchain line when there is one', () => {
    expect(pinOf(spec())).toEqual({ version: 'v1.6.0', toolchain: 'local' });
    expect(() => pinOf(spec({ module: 'sigs.k8s.io/other' }))).toThrow(/does not require sigs\.k8s\.io\/other/);
    expect(() => pinOf(spec({ checkPin: () => { throw new Error('not the deployed release'); } }))).toThrow('not the deployed release');
  });

  it('builds every package into the output folder with the spec ldflags; a module only downloaded has no build', () => {
    expect(buildArgs(spec({ ldflags: (v) => `-X main.v=${v}` }), 'v1.6.0', 'out')).toEqual(['build', '-v', '-trimpath', '-ldflags=-X main.v=v1.6.0', '-o', 'out/', './hello']);
    expect(buildArgs(spec({ packages: [] }), 'v1.6.0', 'out')).toEqual([]);
  });

  it('passes the spec build tags to go build, and none when the list is empty', () => {
    expect(buildArgs(spec({ tags: ['remove_all_sd', 'enable_kubernetes_sd'] }), 'v1.6.0', 'out')).toEqual(['build', '-v', '-trimpath', '-tags=remove_all_sd,enable_kubernetes_sd', '-ldflags=-s -w', '-o', 'out/', './hello']);
    expect(buildArgs(spec({ tags: [] }), 'v1.6.0', 'out')).not.toContainEqual(expect.stringMatching(/^-tags/));
  });
});

describe('ensureGoBuild', () => {
  it('builds, copies from the pinned module and renames into a folder named by version and key, leaving no staging folder', async () => {
    const lines: string[] = [];
    const build = await ensureGoBuild(spec(), (line) => lines.push(line));
    expect(build.dir).toMatch(/\/cache\/tiny-v1\.6\.0-[0-9a-f]{12}$/);
    expect(() => accessSync(build.binary('hello'), constants.X_OK)).not.toThrow();
    expect(readFileSync(join(build.dir, 'copied', 'LICENSE'), 'utf8')).toMatch(/License/i);
    const inputs = JSON.parse(readFileSync(join(build.dir, 'build-inputs.json'), 'utf8')) as { files: [string, string][]; toolchain: string };
    expect(inputs.files.map(([file]) => file)).toEqual(['go.mod', 'go.sum', 'hello/main.go']);
    expect(inputs.toolchain).toMatch(/^go\d/);
    expect(lines.some((line) => line.startsWith('[tiny] building sigs.k8s.io/yaml v1.6.0'))).toBe(true);
    expect(cacheEntries()).toEqual([build.dir.slice(build.dir.lastIndexOf('/') + 1)]);
  });

  it('finds the cached build without running go build again', async () => {
    const first = findGoBuild(spec());
    expect(first).toBeDefined();
    const lines: string[] = [];
    expect((await ensureGoBuild(spec(), (line) => lines.push(line))).dir).toBe(first?.dir);
    expect(lines).toEqual([]);
  });

  it('builds anew, beside the older build, once a source file of the module changed', async () => {
    const before = findGoBuild(spec())?.dir;
    writeMain(' println("changed") ');
    expect(findGoBuild(spec())).toBeUndefined();
    const after = await ensureGoBuild(spec(), () => undefined);
    expect(after.dir).not.toBe(before);
    expect(existsSync(before ?? '')).toBe(true);
  });

  it('two builders of the same inputs at once: both get the one folder, and no staging folder is left', async () => {
    writeMain(' println("raced") ');
    const [a, b] = await Promise.all([ensureGoBuild(spec(), () => undefined), ensureGoBuild(spec(), () => undefined)]);
    expect(a.dir).toBe(b.dir);
    expect(cacheEntries().filter((entry) => entry.startsWith('.'))).toEqual([]);
    expect(() => accessSync(a.binary('hello'), constants.X_OK)).not.toThrow();
  });

  it("a failing build throws with go's message and leaves nothing in the cache", async () => {
    const entries = cacheEntries();
    writeMain(' undefinedName() ');
    await expect(ensureGoBuild(spec(), () => undefined)).rejects.toThrow(/undefined: undefinedName/);
    expect(cacheEntries()).toEqual(entries);
  });
});

describe('pinnedToDeployed', () => {
  it('accepts the deployed release and refuses another, naming both files', () => {
    const check = pinnedToDeployed('go-modules/m/go.mod', () => 'v1.2.3', 'the stack');
    expect(() => check('v1.2.3')).not.toThrow();
    expect(() => check('v1.2.4')).toThrow('go-modules/m/go.mod pins v1.2.4 but the stack deploys v1.2.3');
  });
});
