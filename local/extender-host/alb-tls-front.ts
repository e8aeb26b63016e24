// Starts the ALB's mutual-TLS listener (alb-tls-front-process.ts) as a child
// process for the local ALB adapter, and hands the adapter the refused
// handshakes the child reports in batches.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TLS_FRONT_CONFIG_ENV, type TlsFrontConfig, type TlsFrontMessage } from './alb-tls-front-process';
import { typescriptProgramArgs } from '../common/typescript-program';

export interface TlsFrontOptions extends TlsFrontConfig {
  /** Called with the handshakes refused since the last report. */
  readonly onRefusedHandshakes: (count: number) => void;
}

export interface TlsFront {
  readonly port: number;
  stop(): Promise<void>;
}

const FRONT_PROGRAM = fileURLToPath(new URL('./alb-tls-front-process.ts', import.meta.url));

export function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  const { onRefusedHandshakes, ...config } = options;
  const child = spawn(process.execPath, typescriptProgramArgs(FRONT_PROGRAM), {
    env: { ...process.env, [TLS_FRONT_CONFIG_ENV]: JSON.stringify(config satisfies TlsFrontConfig) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // Ends with the adapter's process, even when that one is killed.
  const killChild = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  return new Promise((resolve, reject) => {
    let stopped: (() => void) | undefined;
    child.on('error', reject);
    child.once('exit', (code: number | null) => {
      process.off('exit', killChild);
      stopped?.();
      reject(new Error(`the ALB adapter's TLS listener exited (code ${String(code)})`));
    });
    child.on('message', (message: TlsFrontMessage) => {
      if ('refused' in message) onRefusedHandshakes(message.refused);
      else if ('error' in message) reject(new Error(`the ALB adapter's TLS listener failed: ${message.error}`));
      else if ('stopped' in message) stopped?.();
      else {
        resolve({
          port: message.listening,
          stop: async () => {
            // Gone already, e.g. Ctrl-C signalled the whole process group: a signal leaves exitCode null.
            if (child.exitCode !== null || child.signalCode !== null || !child.connected) return;
            await new Promise<void>((done) => {
              stopped = done;
              child.send('stop', (error) => {
                if (error) done();
              });
            });
          },
        });
      }
    });
  });
}
