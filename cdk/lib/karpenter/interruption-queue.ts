import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/**
 * The events Karpenter acts on before EC2 does (its reference template's
 * rules): a Spot interruption warning (two minutes' notice), a rebalance
 * recommendation, an instance stopping or terminating, and an AWS Health
 * scheduled change. Karpenter cordons and drains the node and launches a
 * replacement instead of losing its pods with it.
 */
export const INTERRUPTION_EVENTS: Readonly<Record<string, events.EventPattern>> = {
  SpotInterruption: { source: ['aws.ec2'], detailType: ['EC2 Spot Instance Interruption Warning'] },
  Rebalance: { source: ['aws.ec2'], detailType: ['EC2 Instance Rebalance Recommendation'] },
  InstanceStateChange: { source: ['aws.ec2'], detailType: ['EC2 Instance State-change Notification'] },
  ScheduledChange: { source: ['aws.health'], detailType: ['AWS Health Event'] },
};

/** The SQS queue Karpenter reads interruption events from, and the EventBridge rules that fill it. */
export class InterruptionQueue extends Construct {
  readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      // An event older than five minutes is about an instance already gone (the reference template's value).
      retentionPeriod: Duration.seconds(300),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    for (const [name, eventPattern] of Object.entries(INTERRUPTION_EVENTS)) {
      // The target grants events.amazonaws.com SendMessage on the queue, for these rules only.
      new events.Rule(this, `${name}Rule`, { eventPattern, targets: [new targets.SqsQueue(this.queue)] });
    }
  }
}
