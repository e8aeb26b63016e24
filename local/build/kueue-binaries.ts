// Builds Kueue's controller manager (the main package sigs.k8s.io/kueue/cmd/kueue)
// from the Go module proxy, and caches it outside the repository beside the
// CRDs and webhook configurations of the same module, keyed by the version
// pinned in local/kueue-binaries/go.mod.
//
//   npx tsx local/build-kueue.ts     # prints the binary's path
import { accessSync, constants, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../lambdas/common/error-message';
import { cacheRoot, requireGo, runGo } from './go';

const TEMPLATE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'go-modules', 'kueue-binaries');
const MAIN_PACKAGE = 'sigs.k8s.io/kueue/cmd/kueue';
const BINARY_NAME = 'kueue-manager';
/** Every CRD Kueue's manifests install (its controllers watch all of them, MultiKueue's included). */
const CRD_SOURCE_DIR = 'config/components/crd/bases';
/** The kustomization that turns on the CRDs' conversion webhooks, and its patches. */
const CRD_KUSTOMIZATION_DIR = 'config/components/crd';
/** The admission webhooks the release registers (kustomize's input: names and service unprefixed). */
const WEBHOOK_SOURCE_FILE = 'config/components/webhook/manifests.yaml';

export interface KueueBinaries {
  version: string;
  binary: string;
  /** Directory holding the module's CRD files. */
  crdDir: string;
  crdFiles: string[];
  /** The module's MutatingWebhookConfiguration and ValidatingWebhookConfiguration (one YAML stream). */
  webhookManifests: string;
  /** The CRDs' kustomization.yaml, beside its `patches/` (the conversion webhooks a release installs). */
  crdKustomization: string;
}

interface PinnedKueue {
  version: string;
  /** GOTOOLCHAIN for the build: go.mod's toolchain line, or `local` when it has none. */
  toolchain: string;
}

/** The Kueue release (and Go toolchain, when one is named) local/kueue-binaries/go.mod pins. */
export function pinnedKueue(): PinnedKueue {
  const goMod = readFileSync(join(TEMPLATE_DIR, 'go.mod'), 'utf8');
  const version = /^\s*(?:require\s+)?sigs\.k8s\.io\/kueue\s+(v\d+\.\d+\.\d+)\s*$/m.exec(goMod)?.[1];
  if (!version) throw new Error('local/kueue-binaries/go.mod does not pin sigs.k8s.io/kueue to a vX.Y.Z version');
  const toolchain = /^toolchain\s+(go\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1] ?? 'local';
  return { version, toolchain };
}

function binariesIn(dir: string, version: string): KueueBinaries {
  const crdDir = join(dir, 'crds');
  const crdFiles = existsSync(crdDir)
    ? readdirSync(crdDir)
        .filter((file) => file.endsWith('.yaml'))
        .sort()
        .map((file) => join(crdDir, file))
    : [];
  return { version, binary: join(dir, 'bin', BINARY_NAME), crdDir, crdFiles, webhookManifests: join(dir, 'webhooks.yaml'), crdKustomization: join(dir, 'crd-kustomization', 'kustomization.yaml') };
}

function isComplete(binaries: KueueBinaries): boolean {
  try {
    accessSync(binaries.binary, constants.X_OK);
  } catch {
    return false;
  }
  return binaries.crdFiles.length > 0 && existsSync(binaries.webhookManifests) && existsSync(binaries.crdKustomization);
}

/** The cached build for the pinned version, or undefined when it has not been built yet. */
export function findKueueBinaries(env: NodeJS.ProcessEnv = process.env): KueueBinaries | undefined {
  const { version } = pinnedKueue();
  const binaries = binariesIn(join(cacheRoot(env), `kueue-${version}`), version);
  return isComplete(binaries) ? binaries : undefined;
}

async function moduleDir(workDir: string, toolchain: string): Promise<string> {
  const lines: string[] = [];
  await runGo(['list', '-m', '-f', '{{.Dir}}', 'sigs.k8s.io/kueue'], workDir, (line) => lines.push(line), toolchain);
  const dir = lines.find((line) => line.startsWith('/'));
  if (!dir) throw new Error(`go list -m did not print the directory of sigs.k8s.io/kueue: ${lines.join('\n')}`);
  return dir;
}

/**
 * Returns the cached build, building it first when needed: a private
 * directory renamed into place only when the binary, the CRDs and the
 * webhook manifests are there; a failed build throws.
 */
export async function ensureKueueBinaries(log: (message: string) => void = console.log): Promise<KueueBinaries> {
  const cached = findKueueBinaries();
  if (cached) return cached;

  const goVersion = requireGo(`Kueue (${MAIN_PACKAGE})`);
  const { version, toolchain } = pinnedKueue();
  const root = cacheRoot();
  const finalDir = join(root, `kueue-${version}`);
  const stagingDir = join(root, `.kueue-${version}.building-${process.pid}`);
  const workDir = join(stagingDir, 'src');
  const binary = join(stagingDir, 'bin', BINARY_NAME);
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(dirname(binary), { recursive: true });
  cpSync(TEMPLATE_DIR, workDir, { recursive: true });

  const started = Date.now();
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)}s`;
  log(`[kueue] building ${MAIN_PACKAGE} ${version} with GOTOOLCHAIN=${toolchain} (installed: ${goVersion}) into ${finalDir}`);
  try {
    const sourceDir = await moduleDir(workDir, toolchain);
    // File by file into a directory of our own: the module cache's directories are read-only, and a copy of one could not be cleaned up.
    mkdirSync(join(stagingDir, 'crds'));
    for (const file of readdirSync(join(sourceDir, CRD_SOURCE_DIR)).filter((name) => name.endsWith('.yaml'))) {
      cpSync(join(sourceDir, CRD_SOURCE_DIR, file), join(stagingDir, 'crds', file));
    }
    mkdirSync(join(stagingDir, 'crd-kustomization', 'patches'), { recursive: true });
    cpSync(join(sourceDir, CRD_KUSTOMIZATION_DIR, 'kustomization.yaml'), join(stagingDir, 'crd-kustomization', 'kustomization.yaml'));
    for (const file of readdirSync(join(sourceDir, CRD_KUSTOMIZATION_DIR, 'patches'))) {
      cpSync(join(sourceDir, CRD_KUSTOMIZATION_DIR, 'patches', file), join(stagingDir, 'crd-kustomization', 'patches', file));
    }
    cpSync(join(sourceDir, WEBHOOK_SOURCE_FILE), join(stagingDir, 'webhooks.yaml'));
    let built = 0;
    let lastReport = 0;
    await runGo(
      ['build', '-v', '-trimpath', '-ldflags=-s -w', '-o', binary, MAIN_PACKAGE],
      workDir,
      (line) => {
        built += 1;
        if (Date.now() - lastReport > 15_000) {
          lastReport = Date.now();
          log(`[kueue] ${elapsed()} compiled ${built} packages (last: ${line})`);
        }
      },
      toolchain,
    );
    if (!isComplete(binariesIn(stagingDir, version))) throw new Error(`go build finished but ${stagingDir} lacks ${BINARY_NAME}, the CRDs, their kustomization or the webhook manifests`);
    rmSync(workDir, { recursive: true, force: true });
    if (existsSync(finalDir) && !findKueueBinaries()) rmSync(finalDir, { recursive: true, force: true });
    try {
      renameSync(stagingDir, finalDir);
    } catch (error) {
      // Another process finished first; its build is as good as ours.
      if (!findKueueBinaries()) throw error;
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw error;
  }
  const result = findKueueBinaries();
  if (!result) throw new Error(`the built Kueue is missing from ${finalDir}`);
  log(`[kueue] built in ${elapsed()} (${result.crdFiles.length} CRD files beside it)`);
  return result;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  ensureKueueBinaries()
    .then((binaries) => console.log(binaries.binary))
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exitCode = 1;
    });
}
