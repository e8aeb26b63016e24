// The TLS front's own counting, in-process: refused handshakes reach the
// parent as one batched report per interval, never one message per handshake
// (a flood must cost the front's process, not the handler's).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALB_IDLE_TIMEOUT_MS, REFUSAL_REPORT_MS, serveTlsFront, UPSTREAM_IDLE_MS, UPSTREAM_KEEP_ALIVE_MS, type TlsFrontMessage } from '../../../../local/extender-host/alb-tls-front-process';
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

  it('keeps its own keep-alive with the caller (the ALB\'s idle timeout), and closes an idle upstream socket before the upstream would', async () => {
    // A request sent on a pooled socket just as the upstream closes it is reset: the caller would see "socket hang up".
    expect(UPSTREAM_IDLE_MS).toBeLessThan(UPSTREAM_KEEP_ALIVE_MS - 10_000);
    const upstream = createServer((_req, res) => res.end('ok'));
    upstream.keepAliveTimeout = UPSTREAM_KEEP_ALIVE_MS;
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const mtls = await createLocalMutualTls(dir);
    const messages: TlsFrontMessage[] = [];
    const front = serveTlsFront({ ...mtls.adapter, upstreamPort: (upstream.address() as AddressInfo).port, port: 0 }, (message) => messages.push(message));
    try {
      const port = await waitFor('the front to listen', () => messages.flatMap((m) => ('listening' in m ? [m.listening] : []))[0]);
      const answer = await new Promise<{ status: number | undefined; keepAlive: string; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(mtls.scheduler.caFile, 'utf8'),
            cert: readFileSync(mtls.scheduler.certFile, 'utf8'), key: readFileSync(mtls.scheduler.keyFile, 'utf8'), servername: 'localhost', checkServerIdentity: () => undefined,
          },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode, keepAlive: String(res.headers['keep-alive']), body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      // The upstream's own Keep-Alive (hop-by-hop) is not passed on: the caller is told the front's.
      expect(answer).toEqual({ status: 200, keepAlive: `timeout=${ALB_IDLE_TIMEOUT_MS / 1000}`, body: 'ok' });
    } finally {
      await front.stop();
      upstream.closeAllConnections();
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });
});
