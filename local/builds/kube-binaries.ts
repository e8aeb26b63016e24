// Kubernetes and etcd for the local control plane: kube-apiserver,
// kube-scheduler and kube-controller-manager of the release
// go-modules/kube-binaries/go.mod pins (the one the stack deploys for the
// locally built minor), and etcd from its own main there (cmd/etcd).
import { join } from 'node:path';
import { LOCALLY_BUILT_MINOR, locallyBuiltRelease } from '../../cdk/app-config/kubernetes-releases';
import { ensureGoBuild, findGoBuild, pinnedToDeployed, pinOf, type GoBuild, type GoBuildSpec } from './go-build';

export const KUBE_BINARY_NAMES = ['kube-apiserver', 'kube-scheduler', 'kube-controller-manager', 'etcd'] as const;
export type KubeBinaryName = (typeof KUBE_BINARY_NAMES)[number];

export interface KubeBinaries {
  version: string;
  binDir: string;
  path: Record<KubeBinaryName, string>;
}

/** The component-base and client-go version stamps `kubectl version` and /version report, as a release build sets them. */
export function kubeLdflags(version: string): string {
  const [major, minor] = version.replace(/^v/, '').split('.');
  const stamp = (pkg: string): string[] =>
    [['gitVersion', version], ['gitMajor', major ?? ''], ['gitMinor', minor ?? ''], ['gitTreeState', 'clean']].map(([key, value]) => `-X ${pkg}.${key}=${value}`);
  return ['-s', '-w', ...stamp('k8s.io/component-base/version'), ...stamp('k8s.io/client-go/pkg/version')].join(' ');
}

export const KUBE_BUILD: GoBuildSpec = {
  name: 'kubernetes',
  purpose: 'the local Kubernetes control plane (kube-apiserver, kube-scheduler, kube-controller-manager, etcd)',
  moduleDir: join(import.meta.dirname, 'go-modules', 'kube-binaries'),
  module: 'k8s.io/kubernetes',
  checkPin: pinnedToDeployed('local/builds/go-modules/kube-binaries/go.mod', locallyBuiltRelease, `cdk/app-config/kubernetes-releases.ts (for Kubernetes ${LOCALLY_BUILT_MINOR})`),
  packages: ['k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kube-scheduler', 'k8s.io/kubernetes/cmd/kube-controller-manager', './cmd/etcd'],
  ldflags: kubeLdflags,
};

/** The release to build: the one the stack deploys for the locally built minor, which go.mod must pin. */
export const pinnedKubernetesVersion = (): string => pinOf(KUBE_BUILD).version;

function kubeBinaries(build: GoBuild): KubeBinaries {
  const path = Object.fromEntries(KUBE_BINARY_NAMES.map((name) => [name, build.binary(name)])) as Record<KubeBinaryName, string>;
  return { version: build.version, binDir: join(build.dir, 'bin'), path };
}

/** The cached binaries for the pinned version, or undefined when they have not been built yet. */
export function findKubeBinaries(env: NodeJS.ProcessEnv = process.env): KubeBinaries | undefined {
  const build = findGoBuild(KUBE_BUILD, env);
  return build && kubeBinaries(build);
}

/** Returns the cached binaries, building them first when needed. */
export async function ensureKubeBinaries(log: (message: string) => void = console.log): Promise<KubeBinaries> {
  return kubeBinaries(await ensureGoBuild(KUBE_BUILD, log));
}
