import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheKey, moduleFiles, type BuildInputs } from '../../../../local/builds/cache-key';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function templateModule(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cache-key-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'cmd', 'etcd'), { recursive: true });
  writeFileSync(join(dir, 'go.mod'), 'module example.test/m\n\ngo 1.26.0\n\nrequire k8s.io/kubernetes v1.36.3\n');
  writeFileSync(join(dir, 'go.sum'), 'k8s.io/kubernetes v1.36.3 h1:x=\n');
  writeFileSync(join(dir, 'cmd', 'etcd', 'main.go'), 'package main\n\nfunc main() {}\n');
  return dir;
}

function inputsOf(dir: string, change: Partial<BuildInputs> = {}): BuildInputs {
  return {
    name: 'kubernetes',
    module: 'k8s.io/kubernetes',
    version: 'v1.36.3',
    toolchain: 'go1.26.8',
    platform: 'linux/amd64',
    env: { GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' },
    buildArgs: ['build', '-trimpath', '-ldflags=-s -w', '-o', 'bin/', './cmd/etcd'],
    copies: [],
    files: moduleFiles(dir),
    ...change,
  };
}

describe('moduleFiles', () => {
  it('lists every file of the module, nested ones too, sorted, each with the hash of its content', () => {
    const dir = templateModule();
    const files = moduleFiles(dir);
    expect(files.map(([path]) => path)).toEqual(['cmd/etcd/main.go', 'go.mod', 'go.sum']);
    expect(files.every(([, hash]) => /^[0-9a-f]{64}$/.test(hash))).toBe(true);
  });

  it('does not depend on where the module is: a copy lists the same', () => {
    const dir = templateModule();
    const copy = mkdtempSync(join(tmpdir(), 'cache-key-copy-'));
    dirs.push(copy);
    cpSync(dir, copy, { recursive: true });
    expect(moduleFiles(copy)).toEqual(moduleFiles(dir));
  });
});

describe('cacheKey', () => {
  it('is 12 hex digits, the same for the same inputs', () => {
    const dir = templateModule();
    expect(cacheKey(inputsOf(dir))).toMatch(/^[0-9a-f]{12}$/);
    expect(cacheKey(inputsOf(dir))).toBe(cacheKey(inputsOf(dir)));
  });

  it('changes when a source file of the module changes (cmd/etcd/main.go), when go.sum changes, and when a file is added', () => {
    const dir = templateModule();
    const before = cacheKey(inputsOf(dir));
    writeFileSync(join(dir, 'cmd', 'etcd', 'main.go'), 'package main\n\nfunc main() { println() }\n');
    const afterSource = cacheKey(inputsOf(dir));
    expect(afterSource).not.toBe(before);
    writeFileSync(join(dir, 'go.sum'), 'k8s.io/kubernetes v1.36.3 h1:y=\n');
    const afterSum = cacheKey(inputsOf(dir));
    expect(afterSum).not.toBe(afterSource);
    writeFileSync(join(dir, 'tools.go'), 'package tools\n');
    expect(cacheKey(inputsOf(dir))).not.toBe(afterSum);
  });

  it.each<[string, Partial<BuildInputs>]>([
    ['the Go release', { toolchain: 'go1.27.3' }],
    ['the platform', { platform: 'linux/arm64' }],
    ['the build flags', { buildArgs: ['build', '-trimpath', '-ldflags=-s -w -X v=1', '-o', 'bin/', './cmd/etcd'] }],
    ['the environment', { env: { GOFLAGS: '-mod=readonly', CGO_ENABLED: '1' } }],
    ['the pinned version', { version: 'v1.36.4' }],
    ['what is copied from the module', { copies: [{ from: 'config/crd', to: 'crds' }] }],
    ['the component', { name: 'kueue' }],
  ])('changes with %s', (_what, change) => {
    const dir = templateModule();
    expect(cacheKey(inputsOf(dir, change))).not.toBe(cacheKey(inputsOf(dir)));
  });

  it('does not depend on the order the environment is written in', () => {
    const dir = templateModule();
    expect(cacheKey(inputsOf(dir, { env: { CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' } }))).toBe(cacheKey(inputsOf(dir)));
  });
});
