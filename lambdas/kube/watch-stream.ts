import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** When a watch is closed by us: it is read to catch up, not kept open (a Lambda is frozen between invocations). */
export interface WatchLimits {
  /** Close once no event arrived for this long since the stream opened or since the last event. */
  readonly idleMs: number;
  /** Close after this long even if events keep coming. */
  readonly maxMs: number;
}

/** Why a watch ended: idle or maxMs (closed by us), closed (by the server), stopped (the consumer said so). */
export type WatchEnd = 'idle' | 'max' | 'closed' | 'stopped';

export interface WatchStreamResult {
  readonly end: WatchEnd;
  /** Body bytes read. */
  readonly bytes: number;
  /** A broken stream: a line that is not JSON, a reset connection, or more than maxBytes. */
  readonly error?: Error;
}

/**
 * Reads a watch response: one JSON event per line. Only whole lines are
 * handed on, so a stream cut mid-event loses nothing that was counted as
 * delivered. Never rejects: the result says how it ended.
 */
export function readWatchStream(
  res: Readable,
  limits: WatchLimits & { readonly maxBytes: number },
  onEvent: (event: unknown) => boolean | void,
): Promise<WatchStreamResult> {
  return new Promise((resolve) => {
    const decoder = new StringDecoder('utf8');
    let bytes = 0;
    let partial = '';
    let done = false;
    let idle: NodeJS.Timeout | undefined;
    const finish = (end: WatchEnd, error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      clearTimeout(max);
      res.removeAllListeners('data');
      resolve(error === undefined ? { end, bytes } : { end, bytes, error });
    };
    const max = setTimeout(() => finish('max'), limits.maxMs);
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish('idle'), limits.idleMs);
    };
    /** False when the stream must stop (the consumer said so, or a line is not JSON). */
    const deliver = (line: string): boolean => {
      if (line.trim() === '') return true;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch {
        finish('stopped', new Error(`watch event is not JSON: ${line.slice(0, 200)}`));
        return false;
      }
      if (onEvent(event) === false) {
        finish('stopped');
        return false;
      }
      return true;
    };
    armIdle();
    res.on('data', (chunk: Buffer) => {
      if (done) return;
      bytes += chunk.length;
      if (bytes > limits.maxBytes) {
        finish('stopped', new Error(`watch delivered more than ${limits.maxBytes} bytes`));
        return;
      }
      const text = partial + decoder.write(chunk);
      let from = 0;
      for (let newline = text.indexOf('\n', from); newline >= 0; newline = text.indexOf('\n', from)) {
        if (!deliver(text.slice(from, newline))) return;
        from = newline + 1;
      }
      partial = text.slice(from);
      armIdle();
    });
    res.on('end', () => {
      if (!done && deliver(partial + decoder.end())) finish('closed');
    });
    res.on('error', (error) => finish('stopped', error));
    res.on('close', () => finish('closed'));
  });
}
