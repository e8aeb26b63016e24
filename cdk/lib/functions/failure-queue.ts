import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A queue for what failed for good: events EventBridge could not deliver and
 * asynchronous invocations that failed after their retries. Encrypted,
 * TLS-only, kept 14 days; an alarm watches it (cdk/lib/observability/pipeline-alarms.ts).
 */
export function failureQueue(scope: Construct, id: string, whyNoDeadLetterQueue: string): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: whyNoDeadLetterQueue });
  return queue;
}
