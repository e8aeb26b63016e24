import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import { HttpCodeElb, HttpCodeTarget } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRIC } from '../../../lambdas/observability/metric-catalog';
import { catalogMetric, catalogMetricsByDimension } from './catalog-metrics';
import { CAPACITY_GUIDE, capacityRows } from './capacity-widgets';
import { GPU_COST_GUIDE, gpuCostRows } from './gpu-cost-widgets';
import { GPU_HEALTH_GUIDE, gpuHealthRows } from './gpu-health-widgets';
import { outcomeGraphs, outcomeTopRow, READING_GUIDE } from './outcome-widgets';

export interface PipelineDashboardProps {
  readonly dashboardName: string;
  readonly clusterName: string;
  readonly loadBalancer: elbv2.IApplicationLoadBalancer;
  readonly functions: Readonly<Record<'extender' | 'labeler' | 'reconciler', lambda.IFunction>>;
  readonly deadLetterQueues: Readonly<Record<'labeler' | 'reconciler', sqs.IQueue>>;
  /** Shown in the top row's alarm status widget. */
  readonly alarms: readonly cloudwatch.IAlarm[];
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * Container Insights' per-node GPU utilization (published by the
 * amazon-cloudwatch-observability add-on), one line per node.
 */
export function gpuUtilizationSearch(clusterName: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: `SEARCH('{ContainerInsights,ClusterName,InstanceId,NodeName} MetricName="node_gpu_utilization" ClusterName="${clusterName}"', 'Average', 300)`,
    usingMetrics: {},
    label: '',
    period: FIVE_MINUTES,
  });
}

/**
 * One dashboard for the whole pipeline: first the outcome (are GPU pods
 * placed, how many GPUs are idle or stranded, is the second scheduler
 * working, the alarms), then the outcome graphs, then the plumbing
 * (extender, labeler, reconciler, failures).
 */
export class PipelineDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: PipelineDashboardProps) {
    super(scope, id);
    const { loadBalancer, functions, deadLetterQueues } = props;
    const graph = (title: string, left: cloudwatch.IMetric[], width = 8): cloudwatch.GraphWidget =>
      new cloudwatch.GraphWidget({ title, left, width, height: 6 });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown: `# GPU scheduling — ${props.clusterName}\nExtender (second kube-scheduler → internal ALB → Lambda), node labeler, deletion-cost reconciler.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(...outcomeTopRow(props.alarms));
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: READING_GUIDE, width: 24, height: 5 }));
    for (const row of capacityRows()) this.dashboard.addWidgets(...row);
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: CAPACITY_GUIDE, width: 24, height: 3 }));
    for (const row of gpuCostRows()) this.dashboard.addWidgets(...row);
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: GPU_COST_GUIDE, width: 24, height: 3 }));
    for (const row of gpuHealthRows()) this.dashboard.addWidgets(...row);
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: GPU_HEALTH_GUIDE, width: 24, height: 3 }));
    for (const row of outcomeGraphs()) this.dashboard.addWidgets(...row);
    this.dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: '## Plumbing\nRequests, latencies and errors of the extender, labeler and reconciler.', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph('Extender requests per verb', catalogMetricsByDimension(METRIC.extenderRequests, { statistic: 'Sum' })),
      graph('Extender latency p50 / p99 per verb (ms)', [
        ...catalogMetricsByDimension(METRIC.extenderLatency, { statistic: 'p50' }),
        ...catalogMetricsByDimension(METRIC.extenderLatency, { statistic: 'p99' }),
      ]),
      graph('Extender errors (handler, ALB 5xx, Lambda)', [
        ...catalogMetricsByDimension(METRIC.extenderErrors, { statistic: 'Sum' }),
        loadBalancer.metrics.httpCodeElb(HttpCodeElb.ELB_5XX_COUNT, { statistic: 'Sum', period: Duration.minutes(1), label: 'ALB 5xx' }),
        loadBalancer.metrics.httpCodeTarget(HttpCodeTarget.TARGET_5XX_COUNT, { statistic: 'Sum', period: Duration.minutes(1), label: 'Target 5xx' }),
        functions.extender.metricErrors({ statistic: 'Sum', period: Duration.minutes(1), label: 'Lambda errors' }),
        // Not failures: watches that could not resume (410 after a compaction or an API server restart) and listed again.
        ...catalogMetricsByDimension(METRIC.clusterCacheRelists, { statistic: 'Sum' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Nodes rejected by reason', catalogMetricsByDimension(METRIC.nodesRejected, { statistic: 'Sum' })),
      graph('ALB target response time p99 (s)', [loadBalancer.metrics.targetResponseTime({ statistic: 'p99', period: Duration.minutes(1), label: 'p99' })]),
      graph('ALB requests', [loadBalancer.metrics.requestCount({ statistic: 'Sum', period: Duration.minutes(1), label: 'requests' })]),
    );
    this.dashboard.addWidgets(
      graph('Labeler: nodes labeled', [
        catalogMetric(METRIC.nodesLabeled, {}, { statistic: 'Sum', period: FIVE_MINUTES, label: 'labeled' }),
        catalogMetric(METRIC.labelsAlreadyCorrect, {}, { statistic: 'Sum', period: FIVE_MINUTES, label: 'already correct' }),
        catalogMetric(METRIC.startupTaintsRemoved, {}, { statistic: 'Sum', period: FIVE_MINUTES, label: 'start-up taint lifted' }),
        // Not an error (no alarm): a running instance whose node did not join within the wait; see docs/labeler.md.
        catalogMetric(METRIC.nodesNotRegistered, {}, { statistic: 'Sum', period: FIVE_MINUTES, label: 'node did not register in time' }),
      ]),
      graph('Labeler errors by kind', catalogMetricsByDimension(METRIC.labelerErrors, { statistic: 'Sum', period: FIVE_MINUTES })),
      graph('Labeler: time from running to labeled (ms)', [
        catalogMetric(METRIC.timeToLabel, {}, { statistic: 'p50', period: FIVE_MINUTES, label: 'p50' }),
        catalogMetric(METRIC.timeToLabel, {}, { statistic: 'p99', period: FIVE_MINUTES, label: 'p99' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Reconciler: pods and writes', [
        catalogMetric(METRIC.podsEvaluated, {}, { statistic: 'Sum', label: 'pods evaluated' }),
        catalogMetric(METRIC.deletionCostsWritten, {}, { statistic: 'Sum', label: 'deletion costs written' }),
        catalogMetric(METRIC.nodeUtilizationWritten, {}, { statistic: 'Sum', label: 'node utilization written' }),
        catalogMetric(METRIC.podsWithoutMetrics, {}, { statistic: 'Sum', label: 'pods without metrics' }),
      ], 6),
      graph('Reconciler: writes skipped by reason', catalogMetricsByDimension(METRIC.writesSkipped, { statistic: 'Sum' }), 6),
      // Opted-in pods no controller reads a deletion cost of (StatefulSet, Job, …): not written; see docs/reconciler.md.
      graph('Reconciler: opted-in pods not covered, by owner', catalogMetricsByDimension(METRIC.podsNotCovered, { statistic: 'Sum' }), 6),
      graph('Reconciler errors by kind', catalogMetricsByDimension(METRIC.reconcilerErrors, { statistic: 'Sum' }), 6),
    );
    const fnNames = ['extender', 'labeler', 'reconciler'] as const;
    this.dashboard.addWidgets(
      graph('GPU utilization per node (%)', [gpuUtilizationSearch(props.clusterName)], 12),
      graph('Dead-letter queue depth', [
        deadLetterQueues.labeler.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES, label: 'labeler DLQ' }),
        deadLetterQueues.reconciler.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: FIVE_MINUTES, label: 'reconciler DLQ' }),
      ], 12),
    );
    this.dashboard.addWidgets(
      graph('Lambda errors', fnNames.map((name) => functions[name].metricErrors({ statistic: 'Sum', period: FIVE_MINUTES, label: name })), 12),
      graph('Lambda duration p99 (ms)', fnNames.map((name) => functions[name].metricDuration({ statistic: 'p99', period: FIVE_MINUTES, label: name })), 12),
    );
  }
}
