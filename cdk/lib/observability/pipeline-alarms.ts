import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { HttpCodeElb, HttpCodeTarget } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC } from '../../../lambdas/observability/metric-catalog';
import type { AlarmsConfig } from '../../app-config/app-config';
import { catalogMetric, catalogSumParts, dimensionCombinations } from './catalog-metrics';
import { reservedIdleAlarmProps } from './gpu-cost-alarm';
import { gpuHealthAlarmProps } from './gpu-health-alarms';

export interface PipelineAlarmsProps {
  readonly config: AlarmsConfig;
  readonly loadBalancer: elbv2.IApplicationLoadBalancer;
  readonly functions: Readonly<Record<'extender' | 'labeler' | 'reconciler', lambda.IFunction>>;
  readonly deadLetterQueues: Readonly<Record<'labeler' | 'reconciler', sqs.IQueue>>;
  /** With mutual TLS: the rotation function, its failed scheduled runs and the listener's certificate. */
  readonly certificates?: {
    readonly function: lambda.IFunction;
    readonly failedRuns: sqs.IQueue;
    readonly certificateArn: string;
  };
}

const FIVE_MINUTES = Duration.minutes(5);
const ONE_MINUTE = Duration.minutes(1);
/** ACM publishes DaysToExpiry once a day. */
const ONE_DAY = Duration.days(1);

/**
 * Alarms on the outcome (GPU pods pending too long, stranded GPUs, the second
 * scheduler not scheduling or without a ready replica) and on the plumbing
 * (extender 5xx and p99 latency, any dead-lettered event, Lambda errors);
 * optionally notifying an SNS topic. docs/deploy.md says what each means and what to do.
 */
export class PipelineAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly topic: sns.ITopic | undefined;

  constructor(scope: Construct, id: string, props: PipelineAlarmsProps) {
    super(scope, id);
    const { config, loadBalancer } = props;
    this.topic = this.notificationTopic(config);

    const fiveXx = new cloudwatch.MathExpression({
      expression: 'elb + target',
      usingMetrics: {
        elb: loadBalancer.metrics.httpCodeElb(HttpCodeElb.ELB_5XX_COUNT, { statistic: 'Sum', period: FIVE_MINUTES }),
        target: loadBalancer.metrics.httpCodeTarget(HttpCodeTarget.TARGET_5XX_COUNT, { statistic: 'Sum', period: FIVE_MINUTES }),
      },
      label: 'extender 5xx (ALB + target)',
      period: FIVE_MINUTES,
    });
    this.add('Extender5xx', {
      metric: fiveXx,
      threshold: config.extender5xxThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: 'The extender answered the scheduler with 5xx: GPU pods may fail to schedule (or skip the extender when it is ignorable).',
    });
    // Handler-level failures the ALB sees as 200s (an `Error` in a filter
    // result fails the scheduling attempt unless the extender is ignorable).
    const handlerErrors = Object.fromEntries(
      dimensionCombinations(METRIC.extenderErrors).map((dimensions) => [
        Object.values(dimensions).join('').toLowerCase(),
        catalogMetric(METRIC.extenderErrors, dimensions, { statistic: 'Sum', period: FIVE_MINUTES }),
      ]),
    );
    this.add('ExtenderHandlerErrors', {
      metric: new cloudwatch.MathExpression({
        expression: Object.keys(handlerErrors).map((id) => `FILL(${id}, 0)`).join(' + '),
        usingMetrics: handlerErrors,
        label: 'extender handler errors (all verbs)',
        period: FIVE_MINUTES,
      }),
      threshold: config.extenderErrorsThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: 'The extender returned errors to the scheduler (ExtenderErrors, any verb); see the extender log group.',
    });
    this.add('ExtenderLatencyP99', {
      metric: loadBalancer.metrics.targetResponseTime({ statistic: 'p99', period: FIVE_MINUTES }),
      threshold: config.extenderP99LatencyMs / 1000,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription: `Extender p99 above ${config.extenderP99LatencyMs} ms: the scheduling cycle is serial, so this caps GPU-pod scheduling throughput.`,
    });
    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      this.add(`${name}DeadLetters`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        alarmDescription: `Events for the ${name} were dead-lettered after retries; inspect the queue messages.`,
      });
    }
    this.outcomeAlarms(config);
    if (props.certificates) this.certificateAlarms(config, props.certificates);
    for (const [alarmId, alarmProps] of Object.entries(gpuHealthAlarmProps(config))) this.add(alarmId, alarmProps);
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}Errors`, {
        metric: fn.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
        threshold: config.lambdaErrorsThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        alarmDescription: `The ${name} Lambda failed; see its log group.`,
      });
    }
  }

  /** From the reconciler's per-minute outcome metrics and its reading of the second scheduler's /metrics. */
  private outcomeAlarms(config: AlarmsConfig): void {
    this.add('GpuPodsPendingTooLong', {
      metric: catalogMetric(METRIC.oldestPendingGpuPodAge, {}, { statistic: 'Maximum', period: ONE_MINUTE, label: 'oldest pending GPU pod (s)' }),
      threshold: config.gpuPodPendingMinutes * 60,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription: `A GPU pod has waited more than ${config.gpuPodPendingMinutes} min for the GPU scheduler to find it a node (pods held by scheduling gates, e.g. awaiting Kueue's admission, are not counted): see GpuPodsPendingByReason on the dashboard and the pod's FailedScheduling events.`,
    });
    this.add('GpusStranded', {
      metric: new cloudwatch.MathExpression({
        // No GPUs, no share: a division by zero gives no datapoint, not a breach.
        expression: '100 * stranded / allocatable',
        usingMetrics: {
          stranded: catalogMetric(METRIC.gpusStranded, {}, { statistic: 'Average', period: FIVE_MINUTES }),
          allocatable: catalogMetric(METRIC.gpusAllocatable, {}, { statistic: 'Average', period: FIVE_MINUTES }),
        },
        label: 'stranded GPUs (% of allocatable)',
        period: FIVE_MINUTES,
      }),
      threshold: config.strandedGpuPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      alarmDescription: `More than ${config.strandedGpuPercent} % of the GPUs are idle but of no use to the typical GPU pod shapes (fragmentation) for 15 min.`,
    });
    this.add('ReservedGpusIdleWhilePodsWait', reservedIdleAlarmProps(config));
    this.add('GpuSchedulerNoReadyReplica', {
      metric: catalogMetric(METRIC.gpuSchedulerReadyReplicas, {}, { statistic: 'Maximum', period: ONE_MINUTE, label: 'ready gpu-scheduler replicas' }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 3,
      alarmDescription: 'No gpu-scheduler replica has been Ready for 3 min: GPU pods are not scheduled at all.',
    });
    // kube-scheduler counts an attempt whose extender call failed (no answer,
    // a TLS handshake refused either way, a 5xx) as result "error": the filter
    // is not ignorable (schedule_one.go, findNodesThatPassExtenders).
    this.add('GpuSchedulerExtenderErrors', {
      metric: catalogMetric(METRIC.gpuSchedulerAttempts, { Result: 'error' }, { statistic: 'Sum', period: FIVE_MINUTES, label: 'gpu-scheduler attempts with result error' }),
      threshold: config.gpuSchedulerErrorsThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: `The gpu-scheduler had ${config.gpuSchedulerErrorsThreshold} or more scheduling attempts fail with an error in 5 minutes: most often its extender calls fail (TLS handshake, timeout, 5xx), so GPU pods wait.`,
    });
    // Attempts summed over results; a missing result series is no attempt.
    const attempts = catalogSumParts(METRIC.gpuSchedulerAttempts, 'attempts', { statistic: 'Sum', period: FIVE_MINUTES });
    this.add('GpuSchedulerNotScheduling', {
      metric: new cloudwatch.MathExpression({
        expression: `IF(pending > 0 AND (${attempts.expression}) == 0, 1, 0)`,
        usingMetrics: { ...attempts.usingMetrics, pending: catalogMetric(METRIC.gpuPodsPending, {}, { statistic: 'Minimum', period: FIVE_MINUTES }) },
        label: 'GPU pods pending and no scheduling attempt',
        period: FIVE_MINUTES,
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // kube-scheduler retries unschedulable pods at least every 5 min, so 10 min without an attempt is a stuck scheduler.
      evaluationPeriods: 2,
      alarmDescription: 'GPU pods have been pending for 10 min and the gpu-scheduler made no scheduling attempt: it is stuck, not leading, or not running.',
    });
  }

  /**
   * The extender's mutual TLS: a failed rotation run (each, and after its
   * retries), and the listener's certificate nearing its end, which ACM never
   * renews for an imported certificate. A scheduler that cannot complete the
   * handshake shows as GpuSchedulerExtenderErrors.
   */
  private certificateAlarms(config: AlarmsConfig, certificates: NonNullable<PipelineAlarmsProps['certificates']>): void {
    this.add('CertificateRotationErrors', {
      metric: certificates.function.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: 'A run of the extender certificate rotation failed; the next one resumes from the step it names in its log (docs/deploy.md, "Alarms").',
    });
    this.add('CertificateRotationFailedRuns', {
      metric: certificates.failedRuns.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: 'A scheduled certificate rotation failed after its retries; the daily run tries again, and the certificates in place work until they end.',
    });
    this.add('ExtenderCertificateDaysToExpiry', {
      metric: new cloudwatch.Metric({
        namespace: 'AWS/CertificateManager',
        metricName: 'DaysToExpiry',
        dimensionsMap: { CertificateArn: certificates.certificateArn },
        statistic: 'Minimum',
        period: ONE_DAY,
      }),
      threshold: config.certificateDaysToExpiry,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: 1,
      alarmDescription: `The extender ALB's certificate ends in fewer than ${config.certificateDaysToExpiry} days and was not rotated: when it ends, every extender call fails its TLS handshake and no GPU pod is scheduled.`,
    });
  }

  private add(id: string, props: cloudwatch.AlarmProps): void {
    const alarm = new cloudwatch.Alarm(this, id, { treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING, ...props });
    if (this.topic) {
      alarm.addAlarmAction(new cloudwatchActions.SnsAction(this.topic));
      alarm.addOkAction(new cloudwatchActions.SnsAction(this.topic));
    }
    this.alarms.push(alarm);
  }

  private notificationTopic(config: AlarmsConfig): sns.ITopic | undefined {
    if (config.topicArn !== undefined) return sns.Topic.fromTopicArn(this, 'Topic', config.topicArn);
    if (!config.createSnsTopic) return undefined;
    // A customer-managed key: CloudWatch alarms cannot publish to a topic
    // encrypted with the AWS-managed SNS key.
    const key = new kms.Key(this, 'TopicKey', { enableKeyRotation: true, description: 'gpu-scheduling alarm topic' });
    key.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new sns.Topic(this, 'Topic', { masterKey: key, enforceSSL: true, displayName: 'gpu-scheduling alarms' });
    if (config.email !== undefined) topic.addSubscription(new subscriptions.EmailSubscription(config.email));
    return topic;
  }
}
