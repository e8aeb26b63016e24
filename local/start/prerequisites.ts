// Checks the tools `npm start` needs before starting anything, so a missing one
// is one clear message up front instead of a failure minutes into a build.
import { spawnSync } from 'node:child_process';
import { findKubeBinaries, pinnedKubernetesVersion } from '../builds/kube-binaries';

const runs = (command: string, args: string[], env: NodeJS.ProcessEnv): boolean => {
  const probe = spawnSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  return !probe.error && probe.status === 0;
};

/** Each missing prerequisite, with how to install it; empty when all is there. */
export function missingPrerequisites(env: NodeJS.ProcessEnv = process.env): string[] {
  const missing: string[] = [];
  // moto_server itself is installed on first use (local/aws/moto-install.ts); Python is what that needs.
  if (!env.MOTO_URL && !runs('moto_server', ['--help'], env) && !runs('python3', ['--version'], env)) {
    missing.push(
      'Python 3 is required for the local AWS (moto_server, installed on first use): install Python >= 3.9 (https://www.python.org/downloads/)   (or set MOTO_URL to a running moto_server)',
    );
  }
  if (!findKubeBinaries(env) && !runs('go', ['version'], env)) {
    missing.push(
      `Go >= 1.26 is required once, to build the local Kubernetes ${pinnedKubernetesVersion()} control plane (cached afterwards): ` +
        'install it from https://go.dev/dl/ and make sure `go` is on PATH',
    );
  }
  return missing;
}
