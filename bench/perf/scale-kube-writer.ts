// The scale benchmark's setup and churn writes: raw JSON POSTs and DELETEs
// over one keep-alive agent. Creating 55,000 objects through client-node's
// generated models costs the benchmark process more CPU than the API server
// on a 2-core machine; this is setup, not what is measured.
import { Agent, request } from 'node:https';

export interface KubeWriterConnection {
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
}

export interface KubeWriter {
  /** POST `body` to `path`; rejects on a non-2xx answer. */
  create(path: string, body: unknown): Promise<void>;
  /** DELETE `path` at once (grace period 0); a 404 counts as done. */
  remove(path: string): Promise<void>;
  close(): void;
}

export function createKubeWriter(connection: KubeWriterConnection, maxSockets: number): KubeWriter {
  const base = new URL(connection.server);
  const agent = new Agent({ keepAlive: true, maxSockets, ca: connection.caPem });
  const send = (method: 'POST' | 'DELETE', path: string, body: unknown, accept: (status: number) => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        {
          hostname: base.hostname,
          port: base.port || 443,
          path,
          method,
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: `Bearer ${connection.token}`, accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (accept(status)) resolve();
            else reject(new Error(`${method} ${path}: ${status} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return {
    create: (path, body) => send('POST', path, body, (s) => s >= 200 && s < 300),
    remove: (path) => send('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 }, (s) => (s >= 200 && s < 300) || s === 404),
    close: () => agent.destroy(),
  };
}
