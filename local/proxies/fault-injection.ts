// How either proxy applies a fault to one request: answers it itself in the
// service's error format (throttle, status), forwards it late (delay), or
// forwards it and cuts the response mid-body (cut). What a call is, how it
// is forwarded and what an error looks like is the proxy's own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Fault } from './fault-plan';

/** An answer the proxy writes itself. */
export interface ProxyAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type AnsweredFault = Extract<Fault, { kind: 'throttle' | 'status' }>;

export interface FaultTarget {
  /** The service's own error answer for a throttle or a status fault. */
  errorAnswer(fault: AnsweredFault): ProxyAnswer;
  /** Forwards the request upstream; with `cutAfterBytes`, the response is cut after that many body bytes. */
  forward(cutAfterBytes?: number): void;
}

/** Applies `fault` (none: forwards the request as it is) and returns the status the proxy answered itself, if it did. */
export function injectFault(fault: Fault | undefined, req: IncomingMessage, res: ServerResponse, target: FaultTarget): number | undefined {
  switch (fault?.kind) {
    case 'throttle':
    case 'status': {
      const answer = target.errorAnswer(fault);
      req.resume();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return answer.status;
    }
    case 'delay': {
      // The request body waits in the socket meanwhile.
      const timer = setTimeout(() => target.forward(), fault.ms);
      res.once('close', () => clearTimeout(timer));
      return undefined;
    }
    case 'cut':
      target.forward(fault.afterBytes);
      return undefined;
    default:
      target.forward();
      return undefined;
  }
}

/**
 * Passes the upstream answer's body to the client; with `cutAfterBytes`,
 * only that many bytes, and then the connection closes without ending the
 * body: the client holds half an object. `onBytes` sees what passed.
 */
export function passBody(answer: IncomingMessage, res: ServerResponse, cutAfterBytes: number | undefined, onBytes: (bytes: number) => void = () => undefined): void {
  if (cutAfterBytes === undefined) {
    answer.on('data', (chunk: Buffer) => onBytes(chunk.length));
    answer.pipe(res);
    return;
  }
  let passed = 0;
  answer.on('data', (chunk: Buffer) => {
    const room = cutAfterBytes - passed;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    passed += part.length;
    onBytes(part.length);
    if (passed < cutAfterBytes) {
      res.write(part);
      return;
    }
    answer.destroy();
    res.write(part, () => res.socket?.destroy());
  });
  answer.on('end', () => res.end());
}
