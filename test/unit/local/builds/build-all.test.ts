import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVERY_BUILD, specsNamed } from '../../../../local/builds/build-all';
import { buildInputs, pinOf } from '../../../../local/builds/go-build';
import { installedGo, toolchainLine } from '../../../../local/builds/go';
import { KUBE_BUILD } from '../../../../local/builds/kube-binaries';

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const goModules = join(repo, 'local/builds/go-modules');

describe('every Go-built part of the harness', () => {
  it('each module folder of local/builds/go-modules is built by one spec, and each spec builds one of them', () => {
    const folders = readdirSync(goModules).sort();
    expect(EVERY_BUILD.map((spec) => relative(goModules, spec.moduleDir)).sort()).toEqual(folders);
  });

  it.each(EVERY_BUILD.map((spec) => [spec.name, spec] as const))('%s: go.mod pins the module and go.sum holds its hash', (_name, spec) => {
    const { version } = pinOf(spec);
    expect(readFileSync(join(spec.moduleDir, 'go.sum'), 'utf8')).toContain(`${spec.module} ${version} h1:`);
  });

  it.each(EVERY_BUILD.map((spec) => [spec.name, spec] as const))("%s: the cache key hashes every committed file of its module, the Go release that builds it and the build's flags", (_name, spec) => {
    const inputs = buildInputs(spec);
    if (!inputs) throw new Error('Go is needed to key the builds');
    const committed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', relative(repo, spec.moduleDir)], { cwd: repo, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((file) => relative(relative(repo, spec.moduleDir), file))
      .sort();
    expect(inputs.files.map(([file]) => file)).toEqual(committed);
    const goMod = readFileSync(join(spec.moduleDir, 'go.mod'), 'utf8');
    expect(inputs.toolchain).toBe(toolchainLine(goMod) ?? installedGo()?.version);
    expect(inputs.buildArgs).toEqual(spec.packages.length > 0 ? expect.arrayContaining(['-trimpath', ...spec.packages]) : []);
  });

  it("the Kubernetes build keys etcd's own main and stamps the release into the binaries", () => {
    const inputs = buildInputs(KUBE_BUILD);
    expect(inputs?.files.map(([file]) => file)).toContain('cmd/etcd/main.go');
    expect(inputs?.buildArgs.find((arg) => arg.startsWith('-ldflags='))).toContain(`-X k8s.io/component-base/version.gitVersion=${inputs?.version}`);
  });
});

describe('specsNamed', () => {
  it('picks the builds named on the command line, all of them when none is, and refuses an unknown name', () => {
    expect(specsNamed([]).map((spec) => spec.name)).toEqual(EVERY_BUILD.map((spec) => spec.name));
    expect(specsNamed(['kueue', 'karpenter']).map((spec) => spec.name)).toEqual(['karpenter', 'kueue']);
    expect(() => specsNamed(['kube'])).toThrow(/no build is named kube; the builds: kubernetes, karpenter/);
  });
});
