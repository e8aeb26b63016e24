import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { lineWriter } from '../../../../local/start/line-writer';

class Collect extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.lines.push(chunk.toString());
    done();
  }
}

/**
 * A real pipe whose reader has closed its end, as tee has after Ctrl-C; the
 * reader process stays alive so that only the write can notice (EPIPE).
 */
async function pipeWithClosedReader(): Promise<{ stream: Writable; [Symbol.asyncDispose]: () => Promise<void> }> {
  const reader = spawn('sh', ['-c', 'exec 0<&-; echo closed; exec sleep 30'], { stdio: ['pipe', 'pipe', 'ignore'] });
  await once(reader.stdout, 'data');
  return {
    stream: reader.stdin,
    [Symbol.asyncDispose]: async () => {
      reader.kill('SIGKILL');
      await once(reader, 'exit');
    },
  };
}

describe('lineWriter', () => {
  it('moves on to the next stream once the first one fails with EPIPE, and nothing throws', async () => {
    await using pipe = await pipeWithClosedReader();
    const fallback = new Collect();
    const write = lineWriter(pipe.stream, fallback);
    write('first');
    const [error] = (await once(pipe.stream, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('EPIPE');
    write('second');
    expect(fallback.lines).toEqual(['second\n']);
  });

  it('drops lines once every stream is gone; the EPIPE is handled, not thrown', async () => {
    await using pipe = await pipeWithClosedReader();
    // Only lineWriter listens for 'error': unhandled, the EPIPE would fail this test as it kills npm start.
    const closed = new Promise((resolve) => pipe.stream.on('close', resolve));
    const write = lineWriter(pipe.stream);
    write('first');
    await closed;
    expect(pipe.stream.destroyed).toBe(true);
    expect(() => write('second')).not.toThrow();
  });
});
