// The TLS front's own counting, in-process: refused handshakes reach the
// parent as one batched report per interval, never one message per handshake
// (a flood must cost the front's process, not the handler's).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFUSAL_REPORT_MS, serveTlsFront, type TlsFrontMessage } from '../../../../local/extender-host/alb-tls-front-process';
import { createLocalMutualTls } from '../../../../local/extender-host/extender-mtls';
import { waitFor } from '../../../../local/common/wait';

const dir = mkdtempSync(join(tmpdir(), 'alb-tls-front-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client without a certificate: the handshake fails. */
function refusedCall(port: number, ca: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/filter', method: 'POST', ca }, () => reject(new Error('the front answered a client without a certificate')));
    req.on('error', () => resolve());
    req.end('{}');
  });
}

describe('serveTlsFront', () => {
  it('counts refused handshakes and reports them in batches, one message per interval at most', async () => {
    const mtls = await createLocalMutualTls(dir);
    const messages: TlsFrontMessage[] = [];
    const front = serveTlsFront({ ...mtls.adapter, upstreamPort: 9, port: 0 }, (message) => messages.push(message));
    try {
      const port = await waitFor('the front to listen', () => messages.flatMap((m) => ('listening' in m ? [m.listening] : []))[0]);
      const ca = readFileSync(mtls.scheduler.caFile, 'utf8');
      for (let i = 0; i < 5; i++) await refusedCall(port, ca);
      const refusals = (): number[] => messages.flatMap((m) => ('refused' in m ? [m.refused] : []));
      expect(refusals()).toEqual([]);
      let ticks = 0;
      await waitFor('the five refusals to be reported', () => {
        vi.advanceTimersByTime(REFUSAL_REPORT_MS);
        ticks += 1;
        return refusals().reduce((a, b) => a + b, 0) === 5 ? true : undefined;
      });
      expect(refusals().length).toBeLessThanOrEqual(ticks);
      expect(refusals().length).toBeLessThan(5);
    } finally {
      await front.stop();
    }
  });
});
