// Karpenter's controller with the harness's cloud provider
// (go-modules/karpenter-binaries/karpenter-ec2: Karpenter's kwok provider,
// which its own tests run, wrapped so each launch is also an EC2 instance in
// moto), built with the Go release go.mod's toolchain line names, beside the
// CRDs of the same module.
import { join } from 'node:path';
import { ensureGoBuild, findGoBuild, pinOf, type GoBuild, type GoBuildSpec, type Pin } from './go-build';

/**
 * The CRDs the kwok provider is installed with, as files of the module:
 * NodePool and NodeClaim (the kwok chart's copies, which also reserve the
 * karpenter.kwok.sh label domain), NodeOverlay and CapacityBuffer (watched by
 * controllers Karpenter always starts), and the provider's KWOKNodeClass.
 */
export const KARPENTER_CRD_FILES = [
  'kwok/charts/crds/karpenter.sh_nodepools.yaml',
  'kwok/charts/crds/karpenter.sh_nodeclaims.yaml',
  'kwok/charts/crds/karpenter.sh_nodeoverlays.yaml',
  'kwok/charts/crds/autoscaling.x-k8s.io_capacitybuffers.yaml',
  'kwok/apis/crds/karpenter.kwok.sh_kwoknodeclasses.yaml',
] as const;

const baseName = (file: string): string => file.slice(file.lastIndexOf('/') + 1);

export interface KarpenterBinaries {
  version: string;
  /** The controller with the harness's cloud provider (kwok wrapped to launch EC2 instances). */
  binary: string;
  /** Directory holding the CRD files named in KARPENTER_CRD_FILES (base names). */
  crdDir: string;
  crdFiles: string[];
}

export const KARPENTER_BUILD: GoBuildSpec = {
  name: 'karpenter',
  purpose: "Karpenter with the harness's EC2-backed kwok provider (local/builds/go-modules/karpenter-binaries/karpenter-ec2)",
  moduleDir: join(import.meta.dirname, 'go-modules', 'karpenter-binaries'),
  module: 'sigs.k8s.io/karpenter',
  packages: ['./karpenter-ec2'],
  copies: KARPENTER_CRD_FILES.map((file) => ({ from: file, to: `crds/${baseName(file)}` })),
};

/** The Karpenter release and the Go toolchain go.mod pins. */
export function pinnedKarpenter(): Pin {
  const pin = pinOf(KARPENTER_BUILD);
  if (pin.toolchain === 'local') throw new Error('local/builds/go-modules/karpenter-binaries/go.mod has no `toolchain goX.Y.Z` line naming the Go release to build with');
  return pin;
}

function karpenterBinaries(build: GoBuild): KarpenterBinaries {
  const crdDir = join(build.dir, 'crds');
  return { version: build.version, binary: build.binary('karpenter-ec2'), crdDir, crdFiles: KARPENTER_CRD_FILES.map((file) => join(crdDir, baseName(file))) };
}

/** The cached build of the template module as it is now, or undefined when it has not been built yet. */
export function findKarpenterBinaries(env: NodeJS.ProcessEnv = process.env): KarpenterBinaries | undefined {
  const build = findGoBuild(KARPENTER_BUILD, env);
  return build && karpenterBinaries(build);
}

/** Returns the cached build, building it first when needed. */
export async function ensureKarpenterBinaries(log: (message: string) => void = console.log): Promise<KarpenterBinaries> {
  return karpenterBinaries(await ensureGoBuild(KARPENTER_BUILD, log));
}
