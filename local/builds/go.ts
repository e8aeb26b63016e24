// The go command as the builds run it: the cache root outside the repository,
// the check that Go is installed, the installed Go's version and platform, what
// a template module's go.mod pins, and running `go` in a copy of that module.
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

/** The environment every `go` run gets besides GOTOOLCHAIN: go.sum is the truth, and the binaries are static. */
export const GO_ENV = { GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' } as const;

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EKS_GPU_SCHEDULING_CACHE) return resolve(env.EKS_GPU_SCHEDULING_CACHE);
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'eks-gpu-scheduling');
}

/** The installed Go: its release (`go1.26.8`) and the platform it builds for (`linux/amd64`). */
export interface InstalledGo {
  readonly version: string;
  readonly platform: string;
}

let installed: InstalledGo | undefined;

/** The installed Go, or undefined when there is none on PATH (asked once per process). */
export function installedGo(): InstalledGo | undefined {
  if (installed) return installed;
  const probe = spawnSync('go', ['env', 'GOVERSION', 'GOOS', 'GOARCH'], { encoding: 'utf8', env: { ...process.env, GOTOOLCHAIN: 'local' } });
  if (probe.error || probe.status !== 0) return undefined;
  const [version, os, arch] = probe.stdout.trim().split('\n');
  if (!version || !os || !arch) return undefined;
  installed = { version, platform: `${os}/${arch}` };
  return installed;
}

/** The installed Go; a clear error naming `what` needs it when there is none. */
export function requireGo(what: string): InstalledGo {
  const go = installedGo();
  if (go) return go;
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  throw new Error(
    `Go is required to build ${what} but \`go version\` failed: ` +
      (probe.error?.message ?? probe.stderr.trim()) +
      '. Install Go >= 1.26 (https://go.dev/dl/; k8s.io/kubernetes v1.36 needs it) and make sure `go` is on PATH.',
  );
}

/** The version go.mod requires of `module` (`v1.36.3`), or undefined when it requires none. */
export function requiredVersion(goMod: string, module: string): string | undefined {
  const escaped = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\d+\\.\\d+\\.\\d+\\S*)\\s*(?://.*)?$`, 'm').exec(goMod)?.[1];
}

/** go.mod's `toolchain goX.Y.Z` line, or undefined when it has none (the installed Go builds it). */
export function toolchainLine(goMod: string): string | undefined {
  return /^toolchain\s+(go\d+\.\d+(?:\.\d+)?)\s*$/m.exec(goMod)?.[1];
}

/**
 * Runs `go` in a template module's copy. `toolchain` is GOTOOLCHAIN: `local`
 * (the installed Go) unless a module needs a newer release, which the go
 * command then fetches from the module proxy.
 */
export function runGo(args: string[], cwd: string, onLine: (line: string) => void, toolchain = 'local'): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('go', args, {
      cwd,
      env: { ...process.env, GOTOOLCHAIN: toolchain, ...GO_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const collect = (line: string): void => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      onLine(line);
    };
    createInterface({ input: child.stdout }).on('line', collect);
    createInterface({ input: child.stderr }).on('line', collect);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`go ${args[0]} exited with ${code}:\n${tail.join('\n')}`));
    });
  });
}
