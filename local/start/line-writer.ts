// `npm start | tee start.log`, then Ctrl-C: the terminal signals tee too, tee
// exits, and the next write to stdout fails with EPIPE (EIO under `script` once
// its pty is gone, the same after quitting `less`). Node reports that as an
// 'error' event on the stream; unhandled, it kills the process in the middle of
// its teardown and leaves the control plane's temp dir behind. The teardown must
// finish whatever happens to the terminal, so no write here can ever throw.
import type { Writable } from 'node:stream';

const broken = new WeakSet<Writable>();
const guarded = new WeakSet<Writable>();

function guard(stream: Writable): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  // Any error counts: after EPIPE/EIO the stream is destroyed and would fail every later write.
  stream.on('error', () => broken.add(stream));
}

const usable = (stream: Writable): boolean => !broken.has(stream) && !stream.destroyed && stream.writable;

/**
 * Writes each line to the first stream that still works: `streams[0]` until
 * it fails, then the next (stderr is still the terminal under `| tee`), then
 * nowhere. Listening for the streams' errors is what keeps a closed reader
 * from killing the process.
 */
export function lineWriter(...streams: [Writable, ...Writable[]]): (line: string) => void {
  for (const stream of streams) guard(stream);
  return (line) => {
    streams.find(usable)?.write(`${line}\n`);
  };
}
