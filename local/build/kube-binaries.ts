// Builds kube-apiserver, kube-scheduler, kube-controller-manager and etcd from
// the Go module proxy and caches them outside the repository, keyed by the
// Kubernetes version pinned in local/kube-binaries/go.mod.
//
//   npx tsx local/build-binaries.ts      # prints the directory holding the binaries
//
// Run directly, it then builds Karpenter (kwok provider launching moto instances,
// local/build-karpenter.ts), Kueue (local/build-kueue.ts) and Prometheus
// (local/build-prometheus.ts) too.
import { existsSync, mkdirSync, readFileSync, rmSync, renameSync, cpSync, accessSync, constants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCALLY_BUILT_MINOR, locallyBuiltRelease } from '../../cdk/app-config/kubernetes-releases';
import { errorMessage } from '../../lambdas/common/error-message';
import { ensureKarpenterBinaries } from './karpenter-binaries';
import { ensureKueueBinaries } from './kueue-binaries';
import { ensurePrometheusBinary } from './prometheus-binary';
import { cacheRoot, requireGo, runGo } from './go';

export const KUBE_BINARY_NAMES = ['kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'etcd'] as const;
export type KubeBinaryName = (typeof KUBE_BINARY_NAMES)[number];

export interface KubeBinaries {
  version: string;
  binDir: string;
  path: Record<KubeBinaryName, string>;
}

const TEMPLATE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'go-modules', 'kube-binaries');

const GO_PACKAGES = [
  'k8s.io/kubernetes/cmd/kube-apiserver',
  'k8s.io/kubernetes/cmd/kube-scheduler',
  'k8s.io/kubernetes/cmd/kube-controller-manager',
  './cmd/etcd',
];

/**
 * The release to build: the one cdk/app-config/kubernetes-releases.ts deploys
 * for the locally built version, which go.mod must pin (its go.sum and
 * staging-module versions cannot be generated, so a mismatch is an error, not
 * a rewrite).
 */
export function pinnedKubernetesVersion(): string {
  const goMod = readFileSync(join(TEMPLATE_DIR, 'go.mod'), 'utf8');
  const match = /^\s*k8s\.io\/kubernetes\s+(v\d+\.\d+\.\d+)\s*$/m.exec(goMod);
  if (!match?.[1]) throw new Error(`local/kube-binaries/go.mod does not pin k8s.io/kubernetes to a vX.Y.Z version`);
  const deployed = locallyBuiltRelease();
  if (match[1] !== deployed) {
    throw new Error(
      `local/kube-binaries/go.mod pins k8s.io/kubernetes ${match[1]} but cdk/app-config/kubernetes-releases.ts deploys ${deployed} ` +
        `for Kubernetes ${LOCALLY_BUILT_MINOR}; the tests must run the release that is deployed, so change both together`,
    );
  }
  return match[1];
}

function binariesIn(binDir: string, version: string): KubeBinaries {
  const path = Object.fromEntries(KUBE_BINARY_NAMES.map((name) => [name, join(binDir, name)])) as Record<
    KubeBinaryName,
    string
  >;
  return { version, binDir, path };
}

function isComplete(binaries: KubeBinaries): boolean {
  return KUBE_BINARY_NAMES.every((name) => {
    try {
      accessSync(binaries.path[name], constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The cached binaries for the pinned version, or undefined when they have not been built yet. */
export function findKubeBinaries(env: NodeJS.ProcessEnv = process.env): KubeBinaries | undefined {
  const version = pinnedKubernetesVersion();
  const binaries = binariesIn(join(cacheRoot(env), `k8s-${version}`, 'bin'), version);
  return isComplete(binaries) ? binaries : undefined;
}

function ldflags(version: string): string {
  const [major, minor] = version.replace(/^v/, '').split('.');
  const x = (pkg: string, key: string, value: string): string => `-X ${pkg}.${key}=${value}`;
  const stamp = (pkg: string): string[] => [
    x(pkg, 'gitVersion', version),
    x(pkg, 'gitMajor', major ?? ''),
    x(pkg, 'gitMinor', minor ?? ''),
    x(pkg, 'gitTreeState', 'clean'),
  ];
  return ['-s', '-w', ...stamp('k8s.io/component-base/version'), ...stamp('k8s.io/client-go/pkg/version')].join(' ');
}

async function countPackages(workDir: string): Promise<number> {
  let count = 0;
  await runGo(['list', '-deps', ...GO_PACKAGES], workDir, () => {
    count += 1;
  });
  return count;
}

/**
 * Returns the cached binaries, building them first when needed. The build goes
 * to a private directory that is renamed into place only when every binary is
 * there, so an interrupted build is never mistaken for a good one.
 */
export async function ensureKubeBinaries(log: (message: string) => void = console.log): Promise<KubeBinaries> {
  const cached = findKubeBinaries();
  if (cached) return cached;

  const goVersion = requireGo('the local Kubernetes control plane (kube-apiserver, kube-scheduler, kube-controller-manager, etcd)');
  const version = pinnedKubernetesVersion();
  const root = cacheRoot();
  const finalDir = join(root, `k8s-${version}`);
  const stagingDir = join(root, `.k8s-${version}.building-${process.pid}`);
  const workDir = join(stagingDir, 'src');
  const binDir = join(stagingDir, 'bin');
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(binDir, { recursive: true });
  cpSync(TEMPLATE_DIR, workDir, { recursive: true });

  const started = Date.now();
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)}s`;
  log(`[kube-binaries] building Kubernetes ${version} + etcd with ${goVersion} into ${finalDir}`);
  try {
    const total = await countPackages(workDir);
    log(`[kube-binaries] ${total} Go packages (modules downloaded) after ${elapsed()}`);
    let built = 0;
    let lastReport = 0;
    await runGo(
      ['build', '-v', '-trimpath', `-ldflags=${ldflags(version)}`, '-o', binDir + '/', ...GO_PACKAGES],
      workDir,
      (line) => {
        built += 1;
        if (Date.now() - lastReport > 15_000) {
          lastReport = Date.now();
          log(`[kube-binaries] ${elapsed()} compiled ${built}/~${total} packages (last: ${line})`);
        }
      },
    );
    const staged = binariesIn(binDir, version);
    if (!isComplete(staged)) throw new Error(`go build finished but ${binDir} lacks some of ${KUBE_BINARY_NAMES.join(', ')}`);
    rmSync(workDir, { recursive: true, force: true });
    if (existsSync(finalDir) && !findKubeBinaries()) rmSync(finalDir, { recursive: true, force: true });
    try {
      renameSync(stagingDir, finalDir);
    } catch (error) {
      // Another process finished first; its binaries are as good as ours.
      if (!findKubeBinaries()) throw error;
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw error;
  }
  log(`[kube-binaries] built in ${elapsed()}`);
  const result = findKubeBinaries();
  if (!result) throw new Error(`built binaries are missing from ${finalDir}`);
  return result;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const started = Date.now();
  ensureKubeBinaries()
    .then(async (binaries) => {
      console.log(`[kube-binaries] ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${binaries.binDir}`);
      // Karpenter (its kwok provider, launching moto instances) runs in the e2e tests beside the control plane.
      const karpenterStarted = Date.now();
      const karpenter = await ensureKarpenterBinaries();
      console.log(`[karpenter] ready in ${((Date.now() - karpenterStarted) / 1000).toFixed(1)}s: ${karpenter.binary}`);
      // So does Kueue's controller manager.
      const kueueStarted = Date.now();
      const kueue = await ensureKueueBinaries();
      console.log(`[kueue] ready in ${((Date.now() - kueueStarted) / 1000).toFixed(1)}s: ${kueue.binary}`);
      // Prometheus scrapes the gpu-scheduler in test/e2e/prometheus-scrape.test.ts.
      const prometheusStarted = Date.now();
      const prometheus = await ensurePrometheusBinary();
      console.log(`[prometheus] ready in ${((Date.now() - prometheusStarted) / 1000).toFixed(1)}s: ${prometheus.binary}`);
    })
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exitCode = 1;
    });
}
