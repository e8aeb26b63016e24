// What the Go builds of the local harness share: the cache root outside the
// repository, the check that Go is installed, and running `go` in a copy of a
// template module (local/kube-binaries, local/karpenter-binaries).
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EKS_GPU_SCHEDULING_CACHE) return resolve(env.EKS_GPU_SCHEDULING_CACHE);
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'eks-gpu-scheduling');
}

/** The installed Go's `go version` line; a clear error naming `what` needs it when there is none. */
export function requireGo(what: string): string {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `Go is required to build ${what} but \`go version\` failed: ` +
        (probe.error?.message ?? probe.stderr.trim()) +
        '. Install Go >= 1.26 (https://go.dev/dl/; k8s.io/kubernetes v1.36 needs it) and make sure `go` is on PATH.',
    );
  }
  return probe.stdout.trim();
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
      env: { ...process.env, GOTOOLCHAIN: toolchain, GOFLAGS: '-mod=readonly', CGO_ENABLED: '0' },
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
