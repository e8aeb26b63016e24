import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface ProbeOptions {
  bearerToken?: string;
  /** Readiness probes only: the components serve self-signed certificates. */
  insecureTls?: boolean;
  ca?: string;
  timeoutMs?: number;
}

/** GET `url` and resolve with status and body; rejects on connection errors. */
export function httpGet(url: string, options: ProbeOptions = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'GET',
        headers: options.bearerToken ? { authorization: `Bearer ${options.bearerToken}` } : {},
        rejectUnauthorized: options.insecureTls !== true,
        ca: options.ca,
        timeout: options.timeoutMs ?? 5_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
