import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseFloodOptions, startFlood } from '../../../../local/extender-host/loopback-flood';
import { waitFor } from '../../../../local/common/wait';

describe('loopback flood', () => {
  it('accepts loopback targets and positive integers only', () => {
    expect(parseFloodOptions('{"url":"http://127.0.0.1:8080","ratePerSecond":10,"concurrency":2}')).toMatchObject({ ratePerSecond: 10 });
    expect(() => parseFloodOptions('{"url":"http://10.0.0.1:8080","ratePerSecond":10,"concurrency":2}')).toThrow(/loopback only/);
    expect(() => parseFloodOptions('{"url":"http://127.0.0.1:8080","ratePerSecond":0,"concurrency":2}')).toThrow(/ratePerSecond must be a positive integer/);
    expect(() => parseFloodOptions('{"url":"http://127.0.0.1:8080","ratePerSecond":5,"concurrency":1.5}')).toThrow(/concurrency must be a positive integer/);
    expect(() => parseFloodOptions('not json')).toThrow(/usage: /);
  });

  it('runs until stopped, paced and bounded, and counts every answer', async () => {
    let inFlight = 0;
    let most = 0;
    let seen = 0;
    const server = createServer((req, res) => {
      inFlight++;
      seen++;
      most = Math.max(most, inFlight);
      req.resume();
      setImmediate(() => {
        inFlight--;
        res.writeHead(req.url === '/filter' ? 503 : 404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const ratePerSecond = 400;
    const flood = startFlood({ url: `http://127.0.0.1:${port}`, ratePerSecond, concurrency: 4 });
    await waitFor('the server to have answered 100 flood requests', () => (seen >= 100 ? true : undefined));
    const result = await flood.stop();
    const seenAtStop = seen;
    server.close();
    // Every request sent was answered, all of them at /filter, none left in flight.
    expect(result).toMatchObject({ statuses: { '503': result.sent }, refused: 0 });
    expect(result.sent).toBe(seenAtStop);
    expect(result.sent).toBeGreaterThanOrEqual(100);
    expect(most).toBeLessThanOrEqual(4);
    // Paced: never ahead of the rate, however fast the server (a slow machine only sends fewer).
    expect(result.sent).toBeLessThanOrEqual(Math.floor((result.elapsedMs * ratePerSecond) / 1000) + 1);
  });

  it('counts a request that got no HTTP answer as refused', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // The first request goes out as the flood starts; stopping waits for its answer (here: connection refused).
    const result = await startFlood({ url: `http://127.0.0.1:${port}`, ratePerSecond: 1000, concurrency: 2 }).stop();
    expect(result.sent).toBeGreaterThanOrEqual(1);
    expect(result.statuses).toEqual({});
    expect(result.refused).toBe(result.sent);
  });
});
