// Where moto_server comes from: the one on PATH, else a pinned moto[server]
// installed once with pip into a cache outside the repository (as .ci/run
// does), so `npm ci && npm start` needs nothing but Python 3 for it.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isEntryPoint } from '../../cli/command-line';
import { errorMessage } from '../../lambdas/common/error-message';

const run = promisify(execFile);

/** The moto release the harness is tested with; the cache folder carries it, so a new pin installs afresh. */
export const MOTO_VERSION = '5.2.1';

/** How to start moto_server: a command, its leading arguments and extra environment. */
export interface MotoCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Where it comes from, for the log. */
  readonly source: string;
}

export class MotoInstallError extends Error {
  override readonly name = 'MotoInstallError';
}

/** `~/.cache/eks-gpu-scheduling/moto-<version>` (or under $XDG_CACHE_HOME), beside the Go-built binaries. */
export function motoCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), '.cache'), 'eks-gpu-scheduling', `moto-${MOTO_VERSION}`);
}

/** The pinned install in the cache, run as `python3 -m moto.server` with the cache on PYTHONPATH. */
export function cachedMotoCommand(env: NodeJS.ProcessEnv = process.env): MotoCommand {
  const dir = motoCacheDir(env);
  return { command: 'python3', args: ['-m', 'moto.server'], env: { PYTHONPATH: dir }, source: `moto ${MOTO_VERSION} in ${dir}` };
}

async function answers(command: MotoCommand, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await run(command.command, [...command.args, '--help'], { env: { ...env, ...command.env }, timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** moto_server on PATH, else the cached install; undefined when neither runs. */
export async function findMotoServer(env: NodeJS.ProcessEnv = process.env): Promise<MotoCommand | undefined> {
  const onPath: MotoCommand = { command: 'moto_server', args: [], env: {}, source: 'moto_server on PATH' };
  if (await answers(onPath, env)) return onPath;
  const cached = cachedMotoCommand(env);
  return existsSync(motoCacheDir(env)) && (await answers(cached, env)) ? cached : undefined;
}

/**
 * Installs `moto[server]==MOTO_VERSION` with `python3 -m pip install --target`
 * into a fresh folder and moves it into place, so a run interrupted halfway,
 * or two runs at once, never leave a half-installed cache behind.
 */
export async function installMotoServer(log: (message: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<MotoCommand> {
  const dir = motoCacheDir(env);
  try {
    await run('python3', ['--version'], { env, timeout: 60_000 });
  } catch {
    throw new MotoInstallError('Python 3 (>= 3.9) is required for the local AWS (moto_server): install it from https://www.python.org/downloads/ (or set MOTO_URL to a running moto_server)');
  }
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  log(`moto_server not found: installing moto[server]==${MOTO_VERSION} with pip into ${dir} (once)`);
  try {
    await run('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-input', '--target', partial, `moto[server]==${MOTO_VERSION}`], { env, timeout: 900_000 });
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    const detail = (error as { stderr?: string }).stderr?.trim().split('\n').at(-1) ?? errorMessage(error);
    throw new MotoInstallError(`could not install moto[server]==${MOTO_VERSION} with pip (${detail}); install it yourself (python3 -m pip install 'moto[server]==${MOTO_VERSION}') or set MOTO_URL to a running moto_server`);
  }
  if (existsSync(dir)) rmSync(partial, { recursive: true, force: true });
  else renameSync(partial, dir);
  const command = cachedMotoCommand(env);
  if (!(await answers(command, env))) throw new MotoInstallError(`moto[server]==${MOTO_VERSION} was installed into ${dir} but python3 -m moto.server does not run there; remove the folder to install it again`);
  return command;
}

/** The moto_server to start: found, or installed once. */
export async function ensureMotoServer(log: (message: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<MotoCommand> {
  return (await findMotoServer(env)) ?? installMotoServer(log, env);
}

// .ci/run: `npx tsx local/aws/moto-install.ts` installs when needed and prints the command line to start moto_server with.
if (isEntryPoint(import.meta.url)) {
  ensureMotoServer((message) => process.stderr.write(`${message}\n`)).then(
    (command) => {
      const assignments = Object.entries(command.env).map(([key, value]) => `${key}=${value}`);
      process.stdout.write(`${[...(assignments.length > 0 ? ['env', ...assignments] : []), command.command, ...command.args].join(' ')}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`error: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
