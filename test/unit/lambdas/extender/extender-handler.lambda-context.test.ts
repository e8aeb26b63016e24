import type { ALBEvent, ALBResult } from 'aws-lambda';
import { Snapshot } from '../../../../lambdas/scheduling';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { localLambdaContext } from '../../../../local/aws/lambda-context';
import { ANSWER_MARGIN_MS } from '../../../../lambdas/extender/call-budget';
import { createExtenderHandler } from '../../../../lambdas/extender/extender-handler';
import { METRICS_NAMESPACE } from '../../../../lambdas/observability/metric-catalog';
import { expectInvocationContext, invocationContext, logLines, onDemandContainer } from '../observability/lambda-invocation';
import type { StdoutCapture } from '../observability/stdout-capture';
import { captureStdout } from '../observability/stdout-capture';
import { fixture } from './router-harness';

let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  vi.unstubAllEnvs();
});

function albEvent(method: string, path: string, body: string | null): ALBEvent {
  return {
    requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/extender/0123456789abcdef' } },
    httpMethod: method,
    path,
    queryStringParameters: {},
    headers: { 'content-type': 'application/json' },
    body,
    isBase64Encoded: false,
  };
}

/** Runs one invocation and returns the JSON records it wrote. */
async function invocation(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  capture = captureStdout();
  try {
    await run();
    return capture.records();
  } finally {
    capture.restore();
  }
}

describe('the extender ALB handler with a Lambda context', () => {
  it('every line of a request carries its request id, the decision and error lines included; cold_start only on the first', async () => {
    onDemandContainer();
    // No cluster access: full-Nodes requests only, which is all this needs.
    const handler = createExtenderHandler({ env: {} });
    const first = invocationContext('gpu-extender', 'req-filter');
    const decided = await invocation(() => handler(albEvent('POST', '/filter', fixture('extender-args-nodes.json')), first));
    const decisionLines = logLines(decided);
    expect(decisionLines.map((l) => l.message)).toEqual(['extender decision']);
    expect(decisionLines[0]).toMatchObject({ level: 'INFO', service: 'gpu-extender', verb: 'filter' });
    expectInvocationContext(decisionLines, first, true);
    // The request's metrics, through Powertools: same namespace, names and dimensions as the dashboard reads.
    const documents = decided.filter((r) => '_aws' in r) as { _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] } }[];
    expect(documents.length).toBeGreaterThan(0);
    expect(documents[0]!._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [['service', 'Verb']],
      Metrics: [{ Name: 'ExtenderRequests' }, { Name: 'ExtenderLatency' }],
    });

    const second = invocationContext('gpu-extender', 'req-bad-json');
    const rejected = logLines(await invocation(() => handler(albEvent('POST', '/filter', '{oops'), second)));
    expect(rejected.map((l) => [l.level, l.message])).toEqual([['WARN', 'extender request rejected']]);
    expectInvocationContext(rejected, second, false);
  });

  it('a configuration error is logged with the request id of the request that met it', async () => {
    onDemandContainer();
    const handler = createExtenderHandler({ env: { EXTENDER_CACHE_TTL: 'soon' } });
    const context = invocationContext('gpu-extender', 'req-config');
    const lines = logLines(await invocation(() => handler(albEvent('GET', '/healthz', null), context)));
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', message: expect.stringContaining('EXTENDER_CACHE_TTL') })]);
    expectInvocationContext(lines, context, true);
  });

  it('answers 503 before the Lambda timeout while the first cluster listing runs, instead of being stopped with it', async () => {
    onDemandContainer();
    // A listing that finishes only when the test ends: without the call's budget the call would wait for it.
    let finish = (): void => undefined;
    const listing = new Promise<Snapshot>((resolve) => (finish = () => resolve(new Snapshot([]))));
    const handler = createExtenderHandler({ env: {}, cache: { snapshot: () => listing } });
    // 40 ms of the Lambda's time left beyond the answer margin.
    const nearTimeout = localLambdaContext({ functionName: 'gpu-extender', timeoutMs: ANSWER_MARGIN_MS + 40, requestId: 'req-cold' });
    let result: ALBResult | undefined;
    const lines = logLines(await invocation(async () => (result = await handler(albEvent('POST', '/filter', fixture('extender-args-node-names.json')), nearTimeout))));
    finish();
    expect(result?.statusCode).toBe(503);
    expect(lines).toEqual([expect.objectContaining({ level: 'ERROR', status: 503, error: expect.stringContaining("did not finish within this call's") })]);
    expectInvocationContext(lines, nearTimeout, true);
  });
});
