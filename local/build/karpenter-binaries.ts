// Builds Karpenter's controller with the harness's cloud provider
// (local/karpenter-binaries/karpenter-ec2: Karpenter's kwok provider, which
// its own tests run, wrapped so each launch is also an EC2 instance in moto)
// from the Go module proxy, and caches it outside the repository beside the
// CRDs of the same module, keyed by the Karpenter version pinned in
// local/karpenter-binaries/go.mod and a hash of that module's files.
//
//   npx tsx local/build-karpenter.ts     # prints the binary's path
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../lambdas/common/error-message';
import { cacheRoot, requireGo, runGo } from './go';

const TEMPLATE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'go-modules', 'karpenter-binaries');
/** The main package, relative to the template module. */
const MAIN_PACKAGE = './karpenter-ec2';
const BINARY_NAME = 'karpenter-ec2';

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

export interface KarpenterBinaries {
  version: string;
  /** The controller with the harness's cloud provider (kwok wrapped to launch EC2 instances). */
  binary: string;
  /** Directory holding the CRD files named in KARPENTER_CRD_FILES (base names). */
  crdDir: string;
  crdFiles: string[];
}

interface PinnedKarpenter {
  version: string;
  /** GOTOOLCHAIN for the build: go.mod's toolchain line. */
  toolchain: string;
}

/** The Karpenter release and Go toolchain local/karpenter-binaries/go.mod pins. */
export function pinnedKarpenter(): PinnedKarpenter {
  const goMod = readFileSync(join(TEMPLATE_DIR, 'go.mod'), 'utf8');
  const version = /^\s*(?:require\s+)?sigs\.k8s\.io\/karpenter\s+(v\d+\.\d+\.\d+)\s*$/m.exec(goMod)?.[1];
  if (!version) throw new Error('local/karpenter-binaries/go.mod does not pin sigs.k8s.io/karpenter to a vX.Y.Z version');
  const toolchain = /^toolchain\s+(go\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
  if (!toolchain) throw new Error('local/karpenter-binaries/go.mod has no `toolchain goX.Y.Z` line naming the Go release to build with');
  return { version, toolchain };
}

function binariesIn(dir: string, version: string): KarpenterBinaries {
  const crdDir = join(dir, 'crds');
  return {
    version,
    binary: join(dir, 'bin', BINARY_NAME),
    crdDir,
    crdFiles: KARPENTER_CRD_FILES.map((file) => join(crdDir, file.slice(file.lastIndexOf('/') + 1))),
  };
}

function isComplete(binaries: KarpenterBinaries): boolean {
  try {
    accessSync(binaries.binary, constants.X_OK);
  } catch {
    return false;
  }
  return binaries.crdFiles.every((file) => existsSync(file));
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? templateFiles(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort();
}

/**
 * The cache folder's name: the pinned version and a hash of the template
 * module's files, so a change to the provider's source (or go.sum) builds
 * anew, in a folder of its own (other checkouts may share the cache root).
 */
function buildName(version: string): string {
  const hash = createHash('sha256');
  for (const file of templateFiles(TEMPLATE_DIR)) hash.update(`${relative(TEMPLATE_DIR, file)}\0`).update(readFileSync(file)).update('\0');
  return `karpenter-${version}-${hash.digest('hex').slice(0, 12)}`;
}

/** The cached build of the template module as it is now, or undefined when it has not been built yet. */
export function findKarpenterBinaries(env: NodeJS.ProcessEnv = process.env): KarpenterBinaries | undefined {
  const { version } = pinnedKarpenter();
  const binaries = binariesIn(join(cacheRoot(env), buildName(version)), version);
  return isComplete(binaries) ? binaries : undefined;
}

async function moduleDir(workDir: string, toolchain: string): Promise<string> {
  const lines: string[] = [];
  await runGo(['list', '-m', '-f', '{{.Dir}}', 'sigs.k8s.io/karpenter'], workDir, (line) => lines.push(line), toolchain);
  const dir = lines.find((line) => line.startsWith('/'));
  if (!dir) throw new Error(`go list -m did not print the directory of sigs.k8s.io/karpenter: ${lines.join('\n')}`);
  return dir;
}

/**
 * Returns the cached build, building it first when needed. Like the
 * Kubernetes build it goes to a private directory renamed into place only when
 * the binary and every CRD file are there; a failed build throws.
 */
export async function ensureKarpenterBinaries(log: (message: string) => void = console.log): Promise<KarpenterBinaries> {
  const cached = findKarpenterBinaries();
  if (cached) return cached;

  const goVersion = requireGo(`Karpenter with the harness's EC2-backed kwok provider (local/karpenter-binaries/${MAIN_PACKAGE.slice(2)})`);
  const { version, toolchain } = pinnedKarpenter();
  const root = cacheRoot();
  const finalDir = join(root, buildName(version));
  const stagingDir = join(root, `.${buildName(version)}.building-${process.pid}`);
  const workDir = join(stagingDir, 'src');
  const staged = binariesIn(stagingDir, version);
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(dirname(staged.binary), { recursive: true });
  mkdirSync(staged.crdDir, { recursive: true });
  cpSync(TEMPLATE_DIR, workDir, { recursive: true });

  const started = Date.now();
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)}s`;
  log(`[karpenter] building ${MAIN_PACKAGE.slice(2)} (Karpenter ${version}) with GOTOOLCHAIN=${toolchain} (installed: ${goVersion}) into ${finalDir}`);
  try {
    const sourceDir = await moduleDir(workDir, toolchain);
    for (const file of KARPENTER_CRD_FILES) cpSync(join(sourceDir, file), join(staged.crdDir, file.slice(file.lastIndexOf('/') + 1)));
    let built = 0;
    let lastReport = 0;
    await runGo(
      ['build', '-v', '-trimpath', '-ldflags=-s -w', '-o', staged.binary, MAIN_PACKAGE],
      workDir,
      (line) => {
        built += 1;
        if (Date.now() - lastReport > 15_000) {
          lastReport = Date.now();
          log(`[karpenter] ${elapsed()} compiled ${built} packages (last: ${line})`);
        }
      },
      toolchain,
    );
    if (!isComplete(staged)) throw new Error(`go build finished but ${stagingDir} lacks ${BINARY_NAME} or a CRD file`);
    rmSync(workDir, { recursive: true, force: true });
    if (existsSync(finalDir) && !findKarpenterBinaries()) rmSync(finalDir, { recursive: true, force: true });
    try {
      renameSync(stagingDir, finalDir);
    } catch (error) {
      // Another process finished first; its build is as good as ours.
      if (!findKarpenterBinaries()) throw error;
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw error;
  }
  log(`[karpenter] built in ${elapsed()} (${readdirSync(join(finalDir, 'crds')).length} CRD files beside it)`);
  const result = findKarpenterBinaries();
  if (!result) throw new Error(`the built Karpenter is missing from ${finalDir}`);
  return result;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  ensureKarpenterBinaries()
    .then((binaries) => console.log(binaries.binary))
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exitCode = 1;
    });
}
