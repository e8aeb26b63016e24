// Runs one benchmark job in a fresh Node process (tsx loader, --expose-gc):
// isolates memory measurements, and sends the handler's log and EMF lines to
// /dev/null instead of the terminal. The result comes back over IPC.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type ChildJob = { readonly kind: 'extender-latency'; readonly input: unknown } | { readonly kind: 'extender-memory'; readonly input: unknown };

const ENTRY = fileURLToPath(new URL('./child-main.ts', import.meta.url));

/** Extra environment for the child, over this process's (e.g. Powertools switches). */
export type ChildEnv = Readonly<Record<string, string>>;

export function runInChild<T>(job: ChildJob, timeoutMs: number, extraEnv: ChildEnv = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const child = fork(ENTRY, [JSON.stringify(job)], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Powertools reads these at construction: a Lambda-like logger, no colour codes.
      env: { ...process.env, POWERTOOLS_DEV: '', AWS_LAMBDA_FUNCTION_NAME: 'gpu-extender-bench', ...extraEnv },
    });
    let result: { ok: true; value: T } | { ok: false; error: string } | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`benchmark job ${job.kind} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.on('message', (message) => {
      result = message as typeof result;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result?.ok) resolve(result.value);
      else reject(new Error(`benchmark job ${job.kind} failed: ${result?.error ?? `exit ${code ?? signal}`}`));
    });
  });
}
