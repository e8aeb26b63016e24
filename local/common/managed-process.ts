import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, existsSync } from 'node:fs';
import { sleep, waitFor } from './wait';

const running = new Set<ChildProcess>();

/** The last `lines` lines of a log file. */
export function fileTail(path: string, lines = 40): string {
  if (!existsSync(path)) return '(no log)';
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

// Last resort against orphans when the parent exits without calling stop():
// 'exit' handlers may only do synchronous work, and kill() is synchronous.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/** A child process whose output goes to a log file, stopped with SIGTERM then SIGKILL. */
export class ManagedProcess {
  readonly name: string;
  readonly logFile: string;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.logFile = options.logFile;
    const fd = openSync(options.logFile, 'a');
    try {
      this.child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        stdio: ['ignore', fd, fd],
      });
    } finally {
      closeSync(fd);
    }
    running.add(this.child);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code) => {
        running.delete(this.child);
        // null when a signal ended it.
        this.exitCode = code;
        resolve(code);
      });
      this.child.once('error', (error) => {
        running.delete(this.child);
        this.exitCode = null;
        resolve(null);
        console.error(`[${this.name}] failed to start: ${error.message}`);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  /** Throws with the log tail when the process died, e.g. inside a readiness wait. */
  assertRunning(): void {
    if (this.hasExited) {
      throw new Error(`${this.name} exited (code ${String(this.exitCode)}); log tail:\n${this.logTail()}`);
    }
  }

  logTail(lines = 40): string {
    return fileTail(this.logFile, lines);
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGTERM');
    const stopped = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!stopped) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}

export interface Readiness {
  /** What is awaited, for the timeout's message: `etcd /health`. */
  readonly what: string;
  /** True once the process serves. */
  readonly probe: () => Promise<boolean>;
  readonly timeoutMs?: number;
  readonly intervalMs?: number;
}

/**
 * Starts a process and waits until it is ready. One that dies or is not
 * ready in time is stopped, and the error carries its log's tail.
 */
export async function startReadyProcess(options: ManagedProcessOptions, readiness: Readiness): Promise<ManagedProcess> {
  const proc = new ManagedProcess(options);
  try {
    await waitFor(readiness.what, async () => ((await readiness.probe()) ? true : undefined), {
      timeoutMs: readiness.timeoutMs ?? 60_000,
      intervalMs: readiness.intervalMs ?? 250,
      failFast: () => proc.assertRunning(),
    });
  } catch (error) {
    // A process that died has its tail in the error already (assertRunning).
    const tail = proc.hasExited ? '' : `\n--- ${proc.name} log tail ---\n${proc.logTail()}`;
    await proc.stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${tail}`);
  }
  return proc;
}
