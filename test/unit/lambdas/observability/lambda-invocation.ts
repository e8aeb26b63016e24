import type { Context } from 'aws-lambda';
import { expect, vi } from 'vitest';
import { localLambdaContext } from '../../../../local/aws/lambda-context';

/**
 * The environment of a Lambda container started for a request (not
 * provisioned), as the runtime sets it, with Powertools writing one JSON line
 * per log item to stdout. Powertools reads it when a Logger is built, so call
 * it before creating the handler; vi.unstubAllEnvs() undoes it.
 */
export function onDemandContainer(): void {
  vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
  vi.stubEnv('POWERTOOLS_DEV', '');
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'INFO');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
}

/** One invocation's Lambda context, with a request id of its own. */
export function invocationContext(functionName: string, requestId: string): Context {
  return localLambdaContext({ functionName, timeoutMs: 60_000, requestId, memoryMiB: 1024 });
}

/** The log lines among written JSON records: EMF documents carry `_aws` instead of a level. */
export function logLines(records: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return records.filter((r) => typeof r.level === 'string');
}

/** Every log line carries the invocation's context as Powertools' injectLambdaContext writes it. */
export function expectInvocationContext(lines: readonly Record<string, unknown>[], context: Context, coldStart: boolean): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).toMatchObject({
      function_request_id: context.awsRequestId,
      cold_start: coldStart,
      function_name: context.functionName,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
    });
  }
}
