import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LocalContextOptions {
  readonly functionName: string;
  /** What context.getRemainingTimeInMillis() counts down from. */
  readonly timeoutMs: number;
  readonly region?: string;
  readonly accountId?: string;
  readonly memoryMiB?: number;
  readonly requestId?: string;
}

/**
 * The Lambda Context a local host (the ALB adapter, `npm start`'s workers)
 * hands a real handler: the fields the Lambda runtime sets, a deadline for
 * getRemainingTimeInMillis, and the legacy callbacks refusing loudly.
 */
export function localLambdaContext(options: LocalContextOptions): Context {
  const deadline = Date.now() + options.timeoutMs;
  const region = options.region ?? 'us-east-1';
  const accountId = options.accountId ?? '123456789012';
  const unsupported = (): never => {
    throw new Error('legacy context.done/fail/succeed are not supported locally');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryMiB ?? 512),
    awsRequestId: options.requestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
