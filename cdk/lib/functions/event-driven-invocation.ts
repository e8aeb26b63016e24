import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ScheduledFunctionConfig } from '../../app-config/app-config';
import { failureQueue } from './failure-queue';
import type { PipelineFunction } from './pipeline-function';

export interface EventDrivenInvocationProps {
  readonly function: PipelineFunction;
  readonly config: ScheduledFunctionConfig;
  /** Event patterns that trigger the function besides its schedule. */
  readonly eventPatterns?: Readonly<Record<string, events.EventPattern>>;
}

/**
 * EventBridge rules (a schedule plus any event patterns) driving one
 * function, with retries bounded by age and count and a dead-letter queue
 * that catches both failure modes: EventBridge failing to deliver, and the
 * function failing after Lambda accepted the asynchronous invocation.
 */
export class EventDrivenInvocation extends Construct {
  readonly deadLetterQueue: sqs.Queue;
  readonly rules: events.Rule[] = [];

  constructor(scope: Construct, id: string, props: EventDrivenInvocationProps) {
    super(scope, id);
    const { config } = props;
    const fn = props.function.function;
    const maxEventAge = Duration.seconds(config.maxEventAgeSeconds);

    this.deadLetterQueue = failureQueue(this, 'DeadLetterQueue', 'This queue is itself the dead-letter queue of the EventBridge targets and the Lambda asynchronous invocations.');

    // Function errors: Lambda retries asynchronous invocations itself.
    fn.configureAsyncInvoke({
      retryAttempts: config.retryAttempts,
      maxEventAge,
      onFailure: new destinations.SqsDestination(this.deadLetterQueue),
    });

    const target = new eventTargets.LambdaFunction(fn, {
      deadLetterQueue: this.deadLetterQueue,
      retryAttempts: config.retryAttempts,
      maxEventAge,
    });
    this.rules.push(
      new events.Rule(this, 'Schedule', {
        description: `Runs ${fn.node.path} every ${config.scheduleMinutes} minute(s)`,
        schedule: events.Schedule.rate(Duration.minutes(config.scheduleMinutes)),
        targets: [target],
      }),
    );
    for (const [name, eventPattern] of Object.entries(props.eventPatterns ?? {})) {
      this.rules.push(new events.Rule(this, name, { eventPattern, targets: [target] }));
    }
  }
}
