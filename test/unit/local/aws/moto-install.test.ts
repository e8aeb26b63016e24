import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findMotoServer, installMotoServer, MOTO_VERSION, MotoInstallError, motoCacheDir } from '../../../../local/aws/moto-install';

// Where npm start and .ci/run get moto_server from when it is not on PATH:
// the pinned install in the cache. The machine's own Python and moto stand in
// for a finished install (no network here), linked into a fresh cache folder.
const scratch = mkdtempSync(join(tmpdir(), 'moto-install-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function emptyDir(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The machine's python3 and its moto package (from PATH, or from the cache a previous run filled). */
function machinePython(): { python: string; motoPackage: string } {
  const out = execFileSync('python3', ['-c', 'import sys, os, moto; print(sys.executable); print(os.path.dirname(moto.__file__))'], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: motoCacheDir() },
  });
  const [python, motoPackage] = out.trim().split('\n');
  if (python === undefined || motoPackage === undefined) throw new Error(`python3 printed ${out}`);
  return { python, motoPackage };
}

describe('moto-install', () => {
  it('keeps the pinned release in a versioned folder of the cache, outside the repository', () => {
    expect(motoCacheDir({ XDG_CACHE_HOME: '/var/cache/me' })).toBe(`/var/cache/me/eks-gpu-scheduling/moto-${MOTO_VERSION}`);
    expect(motoCacheDir({ HOME: '/home/me' })).toBe(`/home/me/.cache/eks-gpu-scheduling/moto-${MOTO_VERSION}`);
    expect(MOTO_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('without Python finds nothing and refuses to install with a one-line error that says what to install', async () => {
    const env = { PATH: emptyDir('no-tools'), XDG_CACHE_HOME: emptyDir('no-tools-cache') };
    expect(await findMotoServer(env)).toBeUndefined();
    const error = await installMotoServer(() => {}, env).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MotoInstallError);
    expect((error as Error).message).toMatch(/Python 3 .*required.*MOTO_URL/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('with moto_server off PATH, runs the install in the cache as python3 -m moto.server', async () => {
    const { python, motoPackage } = machinePython();
    const bin = emptyDir('python-only');
    symlinkSync(python, join(bin, 'python3'));
    const cacheHome = emptyDir('filled-cache');
    const env = { PATH: bin, XDG_CACHE_HOME: cacheHome, HOME: cacheHome };
    expect(await findMotoServer(env)).toBeUndefined();

    const installed = motoCacheDir(env);
    mkdirSync(installed, { recursive: true });
    symlinkSync(motoPackage, join(installed, 'moto'));
    const found = await findMotoServer(env);
    expect(found).toMatchObject({ command: 'python3', args: ['-m', 'moto.server'], env: { PYTHONPATH: installed } });
    expect(dirname(found?.env.PYTHONPATH ?? '')).toBe(join(cacheHome, 'eks-gpu-scheduling'));
  }, 120_000);
});
