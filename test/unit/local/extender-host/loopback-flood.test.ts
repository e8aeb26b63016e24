import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { flood, parseFloodOptions } from '../../../../local/extender-host/loopback-flood';

describe('loopback flood', () => {
  it('accepts loopback targets and positive integers only', () => {
    expect(parseFloodOptions('{"url":"http://127.0.0.1:8080","requests":10,"seconds":1,"concurrency":2}')).toMatchObject({ requests: 10 });
    expect(() => parseFloodOptions('{"url":"http://10.0.0.1:8080","requests":10,"seconds":1,"concurrency":2}')).toThrow(/loopback only/);
    expect(() => parseFloodOptions('{"url":"http://127.0.0.1:8080","requests":0,"seconds":1,"concurrency":2}')).toThrow(/requests must be a positive integer/);
    expect(() => parseFloodOptions('not json')).toThrow(/usage: /);
  });

  it('sends the requests it was asked for, paced and bounded, and counts the answers', async () => {
    let inFlight = 0;
    let most = 0;
    const server = createServer((req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      req.resume();
      setTimeout(() => {
        inFlight--;
        res.writeHead(req.url === '/filter' ? 503 : 404).end();
      }, 5);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const result = await flood({ url: `http://127.0.0.1:${port}`, requests: 200, seconds: 1, concurrency: 4 });
    server.close();
    expect(result).toMatchObject({ sent: 200, statuses: { '503': 200 }, refused: 0 });
    expect(most).toBeLessThanOrEqual(4);
    // Paced over about a second, not sent at once.
    expect(result.elapsedMs).toBeGreaterThanOrEqual(900);
  });
});
