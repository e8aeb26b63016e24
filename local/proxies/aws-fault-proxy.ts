// An in-process stand-in for faults moto cannot produce: an HTTP proxy in
// front of moto_server that answers chosen calls itself with the errors AWS
// sends when it throttles or fails (in each service's own wire format, so the
// SDK parses them as it parses AWS's), or forwards them late. Point a
// client's endpoint (AWS_ENDPOINT_URL) at it; everything else reaches moto
// unchanged.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One AWS call as the proxy sees it. */
export interface AwsCall {
  /** The signing name from the Authorization header's credential scope: `ec2`, `monitoring` (CloudWatch), … */
  readonly service: string;
  /** `DescribeInstances` (query protocol's Action) or `GetMetricData` (JSON's X-Amz-Target). */
  readonly action: string;
}

/**
 * - throttle: EC2's `RequestLimitExceeded` (query/XML, HTTP 503) or
 *   CloudWatch's `Throttling` (JSON 1.0, HTTP 400);
 * - fail: an internal error (HTTP 500: EC2's `InternalError`, CloudWatch's `InternalServiceError`);
 * - delay: forwarded to moto after `ms`.
 */
export type AwsFault = { readonly kind: 'throttle' } | { readonly kind: 'fail' } | { readonly kind: 'delay'; readonly ms: number };

export interface AwsFaultProxy {
  readonly url: string;
  /** Every call seen, with the fault it got (undefined: forwarded as it was). */
  readonly calls: readonly (AwsCall & { readonly fault: AwsFault['kind'] | undefined; readonly at: number })[];
  /** Calls per `<service> <action>` since the start or the last resetAttempts: a retry is the same call again. */
  readonly attempts: ReadonlyMap<string, number>;
  resetAttempts(): void;
  stop(): Promise<void>;
}

/** `fault` decides each call's answer from the call and which attempt of it this is (1 = the first). */
export async function startAwsFaultProxy(options: {
  readonly target: string;
  readonly fault: (call: AwsCall, attempt: number) => AwsFault | undefined;
}): Promise<AwsFaultProxy> {
  const target = new URL(options.target);
  const calls: (AwsCall & { fault: AwsFault['kind'] | undefined; at: number })[] = [];
  const attempts = new Map<string, number>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readAll(req);
    const call = describeCall(req, body);
    const key = `${call.service} ${call.action}`;
    const attempt = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, attempt);
    const fault = options.fault(call, attempt);
    calls.push({ ...call, fault: fault?.kind, at: Date.now() });
    if (fault?.kind === 'throttle' || fault?.kind === 'fail') {
      const answer = errorAnswer(call, fault.kind);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const out = request(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    attempts,
    resetAttempts: () => attempts.clear(),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function describeCall(req: IncomingMessage, body: Buffer): AwsCall {
  const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(req.headers.authorization ?? '');
  const service = scope?.[1] ?? 'unknown';
  const targetHeader = req.headers['x-amz-target'];
  const action =
    typeof targetHeader === 'string' ? (targetHeader.split('.').at(-1) ?? targetHeader) : (new URLSearchParams(body.toString('utf8')).get('Action') ?? 'unknown');
  return { service, action };
}

/** AWS's own error shapes: the query protocol's XML for EC2, JSON 1.0 (query-compatible) for CloudWatch. */
function errorAnswer(call: AwsCall, kind: 'throttle' | 'fail'): { status: number; headers: Record<string, string>; body: string } {
  const requestId = crypto.randomUUID();
  if (call.service === 'ec2') {
    const [status, code, message] = kind === 'throttle' ? [503, 'RequestLimitExceeded', 'Request limit exceeded.'] : [500, 'InternalError', 'An internal error has occurred'];
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
    return { status, headers: { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId }, body };
  }
  const [status, code, fault, message] = kind === 'throttle' ? [400, 'Throttling', 'Sender', 'Rate exceeded'] : [500, 'InternalServiceError', 'Receiver', 'Internal service error'];
  return {
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId, 'x-amzn-query-error': `${code};${fault}` },
    body: JSON.stringify({ __type: `com.amazonaws.cloudwatch#${code}`, message }),
  };
}
