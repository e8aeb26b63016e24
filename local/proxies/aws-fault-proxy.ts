// An in-process stand-in for faults moto cannot produce: an HTTP proxy in
// front of moto_server that, as its fault plan (fault-plan.ts) says, answers
// chosen calls itself with the errors AWS sends when it throttles or fails
// (in each service's own wire format, so the SDK parses them as it parses
// AWS's), forwards them late, or cuts their answer. Point a client's endpoint
// (AWS_ENDPOINT_URL) at it; everything else reaches moto unchanged, but for
// calls moto does not serve, which an optional stand-in (AwsStandIn) answers
// or completes: each says so where it is written.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { injectFault, passBody, type AnsweredFault, type ProxyAnswer } from './fault-injection';
import { Attempts, type FaultKind, type FaultPlan } from './fault-plan';
import { listenOnLoopback } from '../common/ports';

/** One AWS call as the proxy sees it. */
export interface AwsCall {
  /** The signing name from the Authorization header's credential scope: `ec2`, `monitoring` (CloudWatch), … */
  readonly service: string;
  /** `DescribeInstances` (query protocol's Action) or `GetMetricData` (JSON's X-Amz-Target). */
  readonly action: string;
}

/**
 * Answers for what moto does not serve. Faults come first: a call the plan
 * faults never reaches the stand-in.
 */
export interface AwsStandIn {
  /** The whole answer to a call moto does not implement; undefined: forward it. */
  answer?(call: AwsCall, params: URLSearchParams): ProxyAnswer | undefined;
  /** moto's answer with what it leaves out added (a field it does not model); undefined: pass it on as it is. */
  complete?(call: AwsCall, params: URLSearchParams, body: string): string | undefined;
}

export interface AwsFaultProxy {
  readonly url: string;
  /** Every call seen, with the kind of fault it got (undefined: forwarded as it was). */
  readonly calls: readonly (AwsCall & { readonly fault: FaultKind | undefined; readonly at: number })[];
  /** Calls per `<service> <action>` since the start or the last resetAttempts: a retry is the same call again. */
  readonly attempts: ReadonlyMap<string, number>;
  resetAttempts(): void;
  stop(): Promise<void>;
}

/** `faults` decides each call's answer from the call and which attempt of it this is (1 = the first). */
export async function startAwsFaultProxy(options: { readonly target: string; readonly faults?: FaultPlan<AwsCall>; readonly standIn?: AwsStandIn }): Promise<AwsFaultProxy> {
  const target = new URL(options.target);
  const calls: (AwsCall & { fault: FaultKind | undefined; at: number })[] = [];
  const attempts = new Attempts();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readAll(req);
    const call = describeCall(req, body);
    const fault = options.faults?.(call, attempts.next(`${call.service} ${call.action}`));
    calls.push({ ...call, fault: fault?.kind, at: Date.now() });
    const params = new URLSearchParams(body.toString('utf8'));
    const standIn = fault === undefined ? options.standIn : undefined;
    const answered = standIn?.answer?.(call, params);
    if (answered !== undefined) {
      res.writeHead(answered.status, answered.headers);
      res.end(answered.body);
      return;
    }
    const complete = standIn?.complete;
    const forward = (cutAfterBytes?: number): void => {
      const out = request(
        { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          if (complete !== undefined && cutAfterBytes === undefined) {
            completeBody(answer, res, (text) => complete(call, params, text));
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          passBody(answer, res, cutAfterBytes);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    };
    injectFault(fault, req, res, { errorAnswer: (answered) => awsErrorAnswer(call, answered), forward });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    attempts: attempts.byKey,
    resetAttempts: () => attempts.reset(),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Reads moto's whole answer and passes it on, completed where the stand-in adds to it (its length header rewritten). */
function completeBody(answer: IncomingMessage, res: ServerResponse, complete: (text: string) => string | undefined): void {
  readAll(answer).then(
    (raw) => {
      const completed = complete(raw.toString('utf8'));
      const body = completed === undefined ? raw : Buffer.from(completed, 'utf8');
      const headers = { ...answer.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      res.writeHead(answer.statusCode ?? 502, headers);
      res.end(body);
    },
    () => res.destroy(),
  );
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

/** Each service's error code and message for a status: EC2's, then CloudWatch's (and the JSON services'). */
const AWS_ERRORS: Readonly<Record<number, { ec2: [string, string]; cloudWatch: [string, string] }>> = {
  500: { ec2: ['InternalError', 'An internal error has occurred'], cloudWatch: ['InternalServiceError', 'Internal service error'] },
  503: { ec2: ['Unavailable', 'The server is overloaded and cannot handle the request'], cloudWatch: ['ServiceUnavailable', 'Service unavailable'] },
};

/** Services that answer in the query protocol's XML (EC2's own shape, or the `ErrorResponse` of Elastic Load Balancing). */
const XML_SERVICES = new Set(['ec2', 'elasticloadbalancing']);

/**
 * AWS's own error shapes: the query protocol's XML for EC2 and Elastic Load
 * Balancing, JSON for CloudWatch (1.0, query-compatible) and ACM (1.1). A
 * throttle is EC2's `RequestLimitExceeded` (HTTP 503), ELB's `Throttling`
 * (400), CloudWatch's `Throttling` (400) or ACM's `ThrottlingException` (400).
 */
export function awsErrorAnswer(call: AwsCall, fault: AnsweredFault): ProxyAnswer {
  const requestId = crypto.randomUUID();
  const ec2 = call.service === 'ec2';
  const xml = XML_SERVICES.has(call.service);
  const throttleCode = ec2 ? 'RequestLimitExceeded' : call.service === 'acm' ? 'ThrottlingException' : 'Throttling';
  const [status, defaultCode, defaultMessage] =
    fault.kind === 'throttle'
      ? ec2
        ? [503, throttleCode, 'Request limit exceeded.']
        : [400, throttleCode, 'Rate exceeded']
      : [fault.status, ...(AWS_ERRORS[fault.status]?.[ec2 ? 'ec2' : 'cloudWatch'] ?? ['ServiceError', `HTTP ${fault.status}`])];
  const code = (fault.kind === 'status' ? fault.reason : undefined) ?? defaultCode;
  const message = (fault.kind === 'status' ? fault.message : undefined) ?? defaultMessage;
  const sender = status < 500 ? 'Sender' : 'Receiver';
  if (ec2) {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${message}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
    return { status, headers: { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': requestId }, body };
  }
  if (xml) {
    const body = `<ErrorResponse xmlns="http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/"><Error><Type>${sender}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
    return { status, headers: { 'content-type': 'text/xml', 'x-amzn-requestid': requestId }, body };
  }
  if (call.service === 'acm') {
    return { status, headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': requestId }, body: JSON.stringify({ __type: code, message }) };
  }
  return {
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': requestId, 'x-amzn-query-error': `${code};${sender}` },
    body: JSON.stringify({ __type: `com.amazonaws.cloudwatch#${code}`, message }),
  };
}
