// Builds Prometheus (github.com/prometheus/prometheus/cmd/prometheus) from the
// Go module proxy and caches it outside the repository, keyed by the version
// pinned in local/prometheus-binaries/go.mod, for the e2e files that scrape the
// gpu-scheduler with a real Prometheus. Built without the web UI's assets
// (the `builtinassets` tag): the HTTP API, which the tests query, is all there.
//
//   npx tsx local/build-prometheus.ts     # prints the binary's path
import { accessSync, constants, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorMessage } from '../../lambdas/common/error-message';
import { cacheRoot, requireGo, runGo } from './go';

const TEMPLATE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'go-modules', 'prometheus-binaries');
const MODULE = 'github.com/prometheus/prometheus';
const MAIN_PACKAGE = `${MODULE}/cmd/prometheus`;

export interface PrometheusBinary {
  /** The module version (Prometheus 3.x releases are v0.3xx.y module versions). */
  version: string;
  binary: string;
}

/** The version local/prometheus-binaries/go.mod pins. */
export function pinnedPrometheus(): string {
  const goMod = readFileSync(join(TEMPLATE_DIR, 'go.mod'), 'utf8');
  const version = /^\s*(?:require\s+)?github\.com\/prometheus\/prometheus\s+(v\d+\.\d+\.\d+)\s*$/m.exec(goMod)?.[1];
  if (!version) throw new Error(`local/prometheus-binaries/go.mod does not pin ${MODULE} to a vX.Y.Z version`);
  return version;
}

const binaryIn = (dir: string, version: string): PrometheusBinary => ({ version, binary: join(dir, 'bin', 'prometheus') });

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The cached build for the pinned version, or undefined when it has not been built yet. */
export function findPrometheusBinary(env: NodeJS.ProcessEnv = process.env): PrometheusBinary | undefined {
  const version = pinnedPrometheus();
  const found = binaryIn(join(cacheRoot(env), `prometheus-${version}`), version);
  return isExecutable(found.binary) ? found : undefined;
}

/**
 * Returns the cached build, building it first when needed: in a private
 * directory renamed into place only once the binary is there, like the
 * Kubernetes and Karpenter builds; a failed build throws.
 */
export async function ensurePrometheusBinary(log: (message: string) => void = console.log): Promise<PrometheusBinary> {
  const cached = findPrometheusBinary();
  if (cached) return cached;
  const goVersion = requireGo(`Prometheus (${MAIN_PACKAGE})`);
  const version = pinnedPrometheus();
  const root = cacheRoot();
  const finalDir = join(root, `prometheus-${version}`);
  const stagingDir = join(root, `.prometheus-${version}.building-${process.pid}`);
  const workDir = join(stagingDir, 'src');
  const staged = binaryIn(stagingDir, version);
  rmSync(stagingDir, { recursive: true, force: true });
  mkdirSync(dirname(staged.binary), { recursive: true });
  cpSync(TEMPLATE_DIR, workDir, { recursive: true });
  const started = Date.now();
  const elapsed = (): string => `${Math.round((Date.now() - started) / 1000)}s`;
  log(`[prometheus] building ${MAIN_PACKAGE} ${version} (${goVersion}) into ${finalDir}`);
  try {
    let built = 0;
    let lastReport = 0;
    await runGo(['build', '-v', '-trimpath', '-ldflags=-s -w', '-o', staged.binary, MAIN_PACKAGE], workDir, (line) => {
      built += 1;
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        log(`[prometheus] ${elapsed()} compiled ${built} packages (last: ${line})`);
      }
    });
    if (!isExecutable(staged.binary)) throw new Error(`go build finished but ${staged.binary} is missing`);
    rmSync(workDir, { recursive: true, force: true });
    if (existsSync(finalDir) && !findPrometheusBinary()) rmSync(finalDir, { recursive: true, force: true });
    try {
      renameSync(stagingDir, finalDir);
    } catch (error) {
      // Another process finished first; its build is as good as ours.
      if (!findPrometheusBinary()) throw error;
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(stagingDir, { recursive: true, force: true });
    throw error;
  }
  log(`[prometheus] built in ${elapsed()}`);
  const result = findPrometheusBinary();
  if (!result) throw new Error(`the built Prometheus is missing from ${finalDir}`);
  return result;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  ensurePrometheusBinary()
    .then((found) => console.log(found.binary))
    .catch((error: unknown) => {
      console.error(errorMessage(error));
      process.exitCode = 1;
    });
}
