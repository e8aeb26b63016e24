// The stream reader on a PassThrough: how lines are cut and when the watch is
// closed are decided here, whatever the socket under it.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readWatchStream } from '../../../../lambdas/kube/watch-stream';

const limits = { idleMs: 40, maxMs: 2000, maxBytes: 1_000_000 };
const line = (n: number) => `${JSON.stringify({ type: 'ADDED', object: { n } })}\n`;

describe('readWatchStream', () => {
  it('hands on whole lines only, also when an event and a multi-byte character are split across chunks', async () => {
    const stream = new PassThrough();
    const got: unknown[] = [];
    const done = readWatchStream(stream, limits, (e) => {
      got.push(e);
    });
    const text = `${line(1)}${JSON.stringify({ type: 'ADDED', object: { n: 'é' } })}\n\n${line(3)}`;
    const bytes = Buffer.from(text);
    const cut = bytes.indexOf(Buffer.from('é')) + 1;
    stream.write(bytes.subarray(0, 5));
    stream.write(bytes.subarray(5, cut));
    stream.write(bytes.subarray(cut));
    const result = await done;
    expect(result).toEqual({ end: 'idle', bytes: bytes.length });
    expect(got).toEqual([
      { type: 'ADDED', object: { n: 1 } },
      { type: 'ADDED', object: { n: 'é' } },
      { type: 'ADDED', object: { n: 3 } },
    ]);
  });

  it('drops a partial last line when it closes the stream itself', async () => {
    const stream = new PassThrough();
    const got: unknown[] = [];
    const done = readWatchStream(stream, limits, (e) => {
      got.push(e);
    });
    stream.write(line(1) + line(2).slice(0, 10));
    expect((await done).end).toBe('idle');
    expect(got).toHaveLength(1);
  });

  it('closes after maxMs when events never stop', async () => {
    const stream = new PassThrough();
    let n = 0;
    const timer = setInterval(() => stream.write(line(n++)), 10);
    let seen = 0;
    // Idle longer than max: only the max can end it, however slow the machine.
    const result = await readWatchStream(stream, { ...limits, idleMs: 5000, maxMs: 150 }, () => {
      seen++;
    });
    clearInterval(timer);
    expect(result.end).toBe('max');
    expect(seen).toBeGreaterThan(0);
  });

  it('ends with the server, delivering a last line without a newline', async () => {
    const stream = new PassThrough();
    const got: unknown[] = [];
    const done = readWatchStream(stream, limits, (e) => {
      got.push(e);
    });
    stream.end(line(1) + line(2).trimEnd());
    expect((await done).end).toBe('closed');
    expect(got).toHaveLength(2);
  });

  it('stops when the consumer says so and reads nothing after', async () => {
    const stream = new PassThrough();
    const got: unknown[] = [];
    const done = readWatchStream(stream, limits, (e) => {
      got.push(e);
      return false;
    });
    stream.write(line(1) + line(2));
    expect((await done).end).toBe('stopped');
    expect(got).toHaveLength(1);
  });

  it('reports a line that is not JSON, and a stream over the byte limit, as errors', async () => {
    const a = new PassThrough();
    const bad = readWatchStream(a, limits, () => undefined);
    a.write('<html>\n');
    expect((await bad).error?.message).toMatch(/watch event is not JSON: <html>/);
    const b = new PassThrough();
    const big = readWatchStream(b, { ...limits, maxBytes: 30 }, () => undefined);
    b.write(line(1) + line(2));
    expect((await big).error?.message).toMatch(/more than 30 bytes/);
  });
});
