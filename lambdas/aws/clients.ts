import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import type { AwsClientConfig } from './aws-client-config';

/*
 * One constructor per client so the endpoint, region and retry rules live in
 * one place. Callers add no retry loops of their own.
 */

/**
 * The SDK's retry for every client of ours, set here deliberately rather
 * than left to the default (standard mode, 3 attempts). Standard mode
 * retries throttling (EC2's `RequestLimitExceeded`, CloudWatch's
 * `Throttling`), 5xx and timeouts with exponential backoff and full jitter
 * (in the SDK we ship: up to 50 ms × 2^n, and 1 s × 2^n after a throttle),
 * and draws on a per-client retry quota (500 tokens, 5 per throttled retry,
 * 14 per other), so a hard outage stops retrying instead of amplifying it.
 * Four attempts wait at most 1 + 2 + 4 = 7 s between throttled tries of one
 * call (AWS_RETRY_WAIT_BOUND_MS): the reconciler makes a few such calls in
 * its 50 s, the labeler in its 240 s. A call that still fails is the
 * invocation's failure: the labeler's event goes to Lambda's retries and
 * then the dead-letter queue, the reconciler's next run starts afresh.
 * test/e2e/aws-faults.test.ts runs them through throttling, 5xx and slow answers.
 */
export const AWS_RETRY = { retryMode: 'standard', maxAttempts: 4 } as const;

/** The longest the standard strategy waits, in all, between the tries of one throttled call. */
export const AWS_RETRY_WAIT_BOUND_MS = 1_000 + 2_000 + 4_000;

function sdkOptions(config: AwsClientConfig): { region: string; endpoint?: string; retryMode: string; maxAttempts: number } {
  return config.endpoint === undefined ? { region: config.region, ...AWS_RETRY } : { region: config.region, endpoint: config.endpoint, ...AWS_RETRY };
}

export function createEc2Client(config: AwsClientConfig): EC2Client {
  return new EC2Client(sdkOptions(config));
}

export function createEksClient(config: AwsClientConfig): EKSClient {
  return new EKSClient(sdkOptions(config));
}

export function createCloudWatchClient(config: AwsClientConfig): CloudWatchClient {
  return new CloudWatchClient(sdkOptions(config));
}
