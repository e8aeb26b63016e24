/*
 * The AWS fault proxy against an in-process HTTP server standing in for
 * moto: what is tested is the proxy's own part (which call it is, which
 * attempt, and each service's error format); the e2e tests run it in front of
 * moto with the SDK's real retries.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAwsFaultProxy, type AwsCall, type AwsFaultProxy } from '../../../../local/proxies/aws-fault-proxy';
import type { FaultPlan } from '../../../../local/proxies/fault-plan';

const UPSTREAM_BODY = 'x'.repeat(100);
let upstream: Server;
let proxy: AwsFaultProxy;
let plan: FaultPlan<AwsCall> | undefined;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(UPSTREAM_BODY);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  proxy = await startAwsFaultProxy({ target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, faults: (call, attempt) => plan?.(call, attempt) });
});

afterAll(async () => {
  await proxy.stop();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const scope = (service: string): string => `AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;

/** An EC2 query call or a CloudWatch JSON call, as the SDK sends them. */
function call(service: 'ec2' | 'monitoring', action: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const headers: Record<string, string> =
    service === 'ec2'
      ? { authorization: scope('ec2'), 'content-type': 'application/x-www-form-urlencoded' }
      : { authorization: scope('monitoring'), 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `GraniteServiceVersion20100801.${action}` };
  return new Promise((resolve) => {
    const req = request(`${proxy.url}/`, { method: 'POST', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', () => undefined);
    });
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    req.end(service === 'ec2' ? `Action=${action}&Version=2016-11-15` : '{}');
  });
}

describe('startAwsFaultProxy', () => {
  it('forwards a call without a fault as it is', async () => {
    plan = undefined;
    expect(await call('ec2', 'DescribeInstances')).toMatchObject({ status: 200, body: UPSTREAM_BODY });
  });

  it("throttles in each service's format: EC2's RequestLimitExceeded (XML, 503), CloudWatch's Throttling (JSON 1.0, 400)", async () => {
    plan = () => ({ kind: 'throttle' });
    const ec2 = await call('ec2', 'DescribeInstances');
    expect(ec2.status).toBe(503);
    expect(ec2.body).toContain('<Code>RequestLimitExceeded</Code>');
    const cloudWatch = await call('monitoring', 'GetMetricData');
    expect(cloudWatch.status).toBe(400);
    expect(JSON.parse(cloudWatch.body)).toMatchObject({ __type: 'com.amazonaws.cloudwatch#Throttling' });
    expect(cloudWatch.headers['x-amzn-query-error']).toBe('Throttling;Sender');
  });

  it("answers a status fault with the service's internal error, or the reason given", async () => {
    plan = () => ({ kind: 'status', status: 500 });
    expect((await call('ec2', 'DescribeInstances')).body).toContain('<Code>InternalError</Code>');
    const cloudWatch = await call('monitoring', 'GetMetricData');
    expect(cloudWatch.status).toBe(500);
    expect(cloudWatch.headers['x-amzn-query-error']).toBe('InternalServiceError;Receiver');
    plan = () => ({ kind: 'status', status: 400, reason: 'InvalidParameterValue', message: 'bad' });
    expect((await call('ec2', 'DescribeInstances')).body).toContain('<Code>InvalidParameterValue</Code><Message>bad</Message>');
  });

  it('cuts an answer after the bytes asked for', async () => {
    plan = () => ({ kind: 'cut', afterBytes: 10 });
    expect((await call('ec2', 'DescribeInstances')).body).toBe(UPSTREAM_BODY.slice(0, 10));
  });

  it('counts the attempts of each call, hands the attempt to the plan and records the fault each call got', async () => {
    proxy.resetAttempts();
    const seen: number[] = [];
    plan = (awsCall, attempt) => {
      if (awsCall.action === 'DescribeInstanceTypes') seen.push(attempt);
      return attempt === 1 ? { kind: 'throttle' } : undefined;
    };
    const before = proxy.calls.length;
    await call('ec2', 'DescribeInstanceTypes');
    await call('ec2', 'DescribeInstanceTypes');
    await call('monitoring', 'GetMetricData');
    expect(seen).toEqual([1, 2]);
    expect(proxy.attempts.get('ec2 DescribeInstanceTypes')).toBe(2);
    expect(proxy.calls.slice(before).map(({ service, action, fault }) => [service, action, fault])).toEqual([
      ['ec2', 'DescribeInstanceTypes', 'throttle'],
      ['ec2', 'DescribeInstanceTypes', undefined],
      ['monitoring', 'GetMetricData', 'throttle'],
    ]);
  });
});
