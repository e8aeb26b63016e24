// The one Go build routine every component of the harness is made with
// (Kubernetes and etcd, Karpenter, Kueue, Prometheus, and the modules whose
// files are only read): a template module pins the release in its go.mod; a
// copy of it is built in a private staging folder, with progress; the result
// is checked, then renamed into the cache folder its inputs name
// (cache-key.ts), so an interrupted build is never mistaken for a good one; a
// builder that finishes second keeps the first one's folder.
import { accessSync, chmodSync, constants, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheKey, moduleFiles, type BuildInputs } from './cache-key';
import { cacheRoot, GO_ENV, installedGo, requireGo, requiredVersion, runGo, toolchainLine } from './go';

/** One component: what to build from which template module, and what to copy from the pinned module's source. */
export interface GoBuildSpec {
  /** Names the cache folder and prefixes the progress lines: `kubernetes`, `karpenter`, … */
  readonly name: string;
  /** What is built, for the error when Go is missing. */
  readonly purpose: string;
  /** The committed template module: go.mod, go.sum and any source of its own. */
  readonly moduleDir: string;
  /** The module whose version go.mod requires names the build (`k8s.io/kubernetes`). */
  readonly module: string;
  /** Throws when the pinned version is not the one the stack deploys. */
  readonly checkPin?: (version: string) => void;
  /** Main packages built into `bin/`, each binary named after its package's last element; none for a module that is only downloaded. */
  readonly packages: readonly string[];
  /** `-ldflags` for the pinned version (default `-s -w`). */
  readonly ldflags?: (version: string) => string;
  /** Build tags (`-tags`), e.g. to leave out parts the tests never run. */
  readonly tags?: readonly string[];
  /** Files or folders of the pinned module's source, copied into the cache folder (`to`, relative to it). */
  readonly copies?: readonly { readonly from: string; readonly to: string }[];
}

/** The pinned release and the Go that builds it. */
export interface Pin {
  readonly version: string;
  /** GOTOOLCHAIN: go.mod's toolchain line, or `local` (the installed Go). */
  readonly toolchain: string;
}

/** A finished build in the cache. */
export interface GoBuild {
  readonly version: string;
  /** The cache folder: `bin/` and the copies. */
  readonly dir: string;
  /** A binary of `bin/` by name. */
  binary(name: string): string;
}

/** Written last into a build's folder: its inputs, and the sign that it is complete. */
const INPUTS_FILE = 'build-inputs.json';
const PROGRESS_EVERY_MS = 15_000;

/**
 * A checkPin that accepts only the release the stack deploys: `deployed()`
 * (`v1.36.3`), named by `where` in the error. go.sum cannot be generated here,
 * so a mismatch is an error to fix in both places, not a rewrite.
 */
export function pinnedToDeployed(goMod: string, deployed: () => string, where: string): (version: string) => void {
  return (version) => {
    if (version !== deployed()) {
      throw new Error(`${goMod} pins ${version} but ${where} deploys ${deployed()}; the tests must run the release that is deployed, so change both together`);
    }
  };
}

export function pinOf(spec: GoBuildSpec): Pin {
  const goMod = readFileSync(join(spec.moduleDir, 'go.mod'), 'utf8');
  const version = requiredVersion(goMod, spec.module);
  if (!version) throw new Error(`${join(spec.moduleDir, 'go.mod')} does not require ${spec.module} at a vX.Y.Z version`);
  spec.checkPin?.(version);
  return { version, toolchain: toolchainLine(goMod) ?? 'local' };
}

export const binaryName = (goPackage: string): string => goPackage.slice(goPackage.lastIndexOf('/') + 1);

/** `go build`'s arguments, writing the binaries into `outDir`. */
export function buildArgs(spec: GoBuildSpec, version: string, outDir: string): string[] {
  if (spec.packages.length === 0) return [];
  const tags = spec.tags === undefined || spec.tags.length === 0 ? [] : [`-tags=${spec.tags.join(',')}`];
  return ['build', '-v', '-trimpath', ...tags, `-ldflags=${spec.ldflags?.(version) ?? '-s -w'}`, '-o', `${outDir}/`, ...spec.packages];
}

/** Everything the build is made from, or undefined when there is no Go to say which release builds it. */
export function buildInputs(spec: GoBuildSpec): BuildInputs | undefined {
  const go = installedGo();
  if (!go) return undefined;
  const { version, toolchain } = pinOf(spec);
  return {
    name: spec.name,
    module: spec.module,
    version,
    toolchain: toolchain === 'local' ? go.version : toolchain,
    platform: go.platform,
    env: GO_ENV,
    buildArgs: buildArgs(spec, version, 'bin'),
    copies: spec.copies ?? [],
    files: moduleFiles(spec.moduleDir),
  };
}

const folderName = (inputs: BuildInputs): string => `${inputs.name}-${inputs.version}-${cacheKey(inputs)}`;

function buildIn(dir: string, version: string): GoBuild {
  return { version, dir, binary: (name) => join(dir, 'bin', name) };
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The binaries are executable and every copy is there (a folder with something in it). */
function hasOutputs(spec: GoBuildSpec, dir: string): boolean {
  return (
    spec.packages.every((pkg) => isExecutable(join(dir, 'bin', binaryName(pkg)))) &&
    (spec.copies ?? []).every(({ to }) => existsSync(join(dir, to)) && (!statSync(join(dir, to)).isDirectory() || readdirSync(join(dir, to)).length > 0))
  );
}

const isComplete = (spec: GoBuildSpec, dir: string): boolean => existsSync(join(dir, INPUTS_FILE)) && hasOutputs(spec, dir);

/** The cached build of the template module as it is now, or undefined when it has not been built (or there is no Go). */
export function findGoBuild(spec: GoBuildSpec, env: NodeJS.ProcessEnv = process.env): GoBuild | undefined {
  const inputs = buildInputs(spec);
  if (!inputs) return undefined;
  const dir = join(cacheRoot(env), folderName(inputs));
  return isComplete(spec, dir) ? buildIn(dir, inputs.version) : undefined;
}

/** The pinned module's source folder in the module cache (downloaded first when needed). */
async function moduleSource(spec: GoBuildSpec, workDir: string, toolchain: string): Promise<string> {
  const lines: string[] = [];
  await runGo(['mod', 'download', '-json', spec.module], workDir, (line) => lines.push(line), toolchain);
  const dir = /"Dir":\s*"([^"]+)"/.exec(lines.join('\n'))?.[1];
  if (!dir) throw new Error(`go mod download printed no folder for ${spec.module}:\n${lines.join('\n')}`);
  return dir;
}

/**
 * File by file into folders of our own: the module cache's folders are
 * read-only, and a copy of one could not be removed again.
 */
function copyWritable(from: string, to: string): void {
  if (!statSync(from).isDirectory()) {
    mkdirSync(dirname(to), { recursive: true });
    cpSync(from, to);
    return;
  }
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) copyWritable(join(from, entry), join(to, entry));
}

/** `go build -v` with a line every 15 s: packages compiled of the total `go list -deps` counted. */
async function compile(spec: GoBuildSpec, version: string, toolchain: string, workDir: string, binDir: string, log: (message: string) => void, elapsed: () => string): Promise<void> {
  let total = 0;
  await runGo(
    ['list', '-deps', ...spec.packages],
    workDir,
    () => {
      total += 1;
    },
    toolchain,
  );
  log(`[${spec.name}] ${total} Go packages (modules downloaded) after ${elapsed()}`);
  let built = 0;
  let lastReport = Date.now();
  await runGo(
    buildArgs(spec, version, binDir),
    workDir,
    (line) => {
      built += 1;
      if (Date.now() - lastReport > PROGRESS_EVERY_MS) {
        lastReport = Date.now();
        log(`[${spec.name}] ${elapsed()} compiled ${built}/~${total} packages (last: ${line})`);
      }
    },
    toolchain,
  );
}

/**
 * Moves the staged build into place. Another builder may have finished the
 * same inputs first: its folder is as good as ours, and ours is dropped. A
 * folder of the same name that is not complete (an older, interrupted
 * layout) is replaced.
 */
function install(spec: GoBuildSpec, stagingDir: string, finalDir: string): void {
  if (existsSync(finalDir) && !isComplete(spec, finalDir)) rmSync(finalDir, { recursive: true, force: true });
  try {
    renameSync(stagingDir, finalDir);
  } catch (error) {
    if (!isComplete(spec, finalDir)) throw error;
    rmSync(stagingDir, { recursive: true, force: true });
  }
}

/** Returns the cached build, building it first when needed; a failed build throws and leaves nothing behind. */
export async function ensureGoBuild(spec: GoBuildSpec, log: (message: string) => void = console.log): Promise<GoBuild> {
  const found = findGoBuild(spec);
  if (found) return found;
  const go = requireGo(spec.purpose);
  const inputs = buildInputs(spec);
  if (!inputs) throw new Error(`the installed Go did not say its version; cannot key the build of ${spec.purpose}`);
  const { toolchain } = pinOf(spec);
  const root = cacheRoot();
  const finalDir = join(root, folderName(inputs));
  mkdirSync(root, { recursive: true });
  // One staging folder per builder, beside the cache folder so that the rename stays on one file system.
  const stagingDir = mkdtempSync(join(root, `.${folderName(inputs)}.building-`));
  chmodSync(stagingDir, 0o755);
  const workDir = join(stagingDir, 'src');
  const started = Date.now();
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)}s`;
  log(`[${spec.name}] building ${spec.module} ${inputs.version} with ${inputs.toolchain} (installed: ${go.version}) into ${finalDir}`);
  try {
    cpSync(spec.moduleDir, workDir, { recursive: true });
    if (spec.copies?.length) {
      const source = await moduleSource(spec, workDir, toolchain);
      for (const { from, to } of spec.copies) copyWritable(join(source, from), join(stagingDir, to));
    }
    if (spec.packages.length > 0) await compile(spec, inputs.version, toolchain, workDir, join(stagingDir, 'bin'), log, elapsed);
    rmSync(workDir, { recursive: true, force: true });
    if (!hasOutputs(spec, stagingDir)) throw new Error(`the build finished but ${stagingDir} lacks a binary of ${spec.packages.join(', ')} or a copy of ${(spec.copies ?? []).map((c) => c.from).join(', ')}`);
    writeFileSync(join(stagingDir, INPUTS_FILE), `${JSON.stringify(inputs, null, 2)}\n`);
    install(spec, stagingDir, finalDir);
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw error;
  }
  log(`[${spec.name}] built in ${elapsed()}`);
  return buildIn(finalDir, inputs.version);
}
