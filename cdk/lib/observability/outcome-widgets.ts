import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { GPU_STATES } from '../../../lambdas/observability/metric-catalog';
import { GPU_MODELS, METRIC } from '../../../lambdas/observability/metric-catalog';
import { catalogMetric, catalogMetricsByDimension, catalogSumParts } from './catalog-metrics';

const ONE_MINUTE = Duration.minutes(1);

/** How to read the top row; the numbers come from the reconciler's run every minute (docs/reconciler.md). */
export const READING_GUIDE = [
  '## How to read the top row (latest minute)',
  '**GPUs allocated %**: GPUs held by bound pods ÷ allocatable GPUs of the GPU nodes the reconciler lists (`NODE_SELECTOR`). **Idle**: allocatable − allocated. ' +
    '**Stranded**: the part of idle that the workload’s typical GPU pod shapes cannot use (fragmentation, the FGD measure): high stranded with pods pending is a packing problem; high idle with nothing pending is spare capacity.',
  '**Pending GPU pods** / **oldest (s)**: unbound pods of `spec.schedulerName: gpu-scheduler` that request GPUs (only `POD_NAMESPACES` if the reconciler is limited to some), and how long the oldest has waited; why: *GPU pods pending by reason* below.',
  '**gpu-scheduler attempts / min** (all results) and **ready replicas**: kube-scheduler’s own counters of the second scheduler. 0 attempts while pods are pending, or 0 ready replicas, means GPU pods are not being scheduled at all. ' +
    '**Alarms**: red = in alarm; docs/deploy.md says what each means and what to do.',
].join('\n\n');

function percentAllocated(): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: '100 * allocated / allocatable',
    usingMetrics: {
      allocated: catalogMetric(METRIC.gpusAllocated, {}, { statistic: 'Average' }),
      allocatable: catalogMetric(METRIC.gpusAllocatable, {}, { statistic: 'Average' }),
    },
    label: 'GPUs allocated %',
    period: ONE_MINUTE,
  });
}

function attemptsPerMinute(): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    ...catalogSumParts(METRIC.gpuSchedulerAttempts, 'attempts', { statistic: 'Sum' }),
    label: 'attempts / min',
    period: ONE_MINUTE,
  });
}

/** The top row: GPUs, pending GPU pods, the second scheduler, and the alarms. */
export function outcomeTopRow(alarms: readonly cloudwatch.IAlarm[]): cloudwatch.IWidget[] {
  const single = (title: string, metrics: cloudwatch.IMetric[], width: number): cloudwatch.SingleValueWidget =>
    new cloudwatch.SingleValueWidget({ title, metrics, width, height: 4 });
  return [
    single('GPUs: allocated %, idle, stranded', [
      percentAllocated(),
      catalogMetric(METRIC.gpusIdle, {}, { statistic: 'Average', label: 'idle' }),
      catalogMetric(METRIC.gpusStranded, {}, { statistic: 'Average', label: 'stranded' }),
    ], 7),
    single('Pending GPU pods: count, oldest age, awaiting admission', [
      catalogMetric(METRIC.gpuPodsPending, {}, { statistic: 'Maximum', label: 'pending' }),
      catalogMetric(METRIC.oldestPendingGpuPodAge, {}, { statistic: 'Maximum', label: 'oldest (s)' }),
      catalogMetric(METRIC.gpuPodsAwaitingAdmission, {}, { statistic: 'Maximum', label: 'gated' }),
    ], 5),
    single('gpu-scheduler: attempts, ready replicas', [attemptsPerMinute(), catalogMetric(METRIC.gpuSchedulerReadyReplicas, {}, { statistic: 'Minimum', label: 'ready replicas' })], 5),
    new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms], width: 7, height: 4 }),
  ];
}

function byModel(state: (typeof GPU_STATES)[number]): cloudwatch.Metric[] {
  return GPU_MODELS.map((GpuModel) => catalogMetric(METRIC.gpusByModel, { GpuModel, State: state }, { statistic: 'Average', label: GpuModel }));
}

/** The outcome over time: GPUs per model, pending pods and why, deletion costs, the second scheduler. */
export function outcomeGraphs(): cloudwatch.IWidget[][] {
  const graph = (title: string, left: cloudwatch.IMetric[], options: Partial<cloudwatch.GraphWidgetProps> = {}): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({ title, left, width: 6, height: 6, ...options });
  return [
    [
      graph('GPUs allocatable per model', byModel('Allocatable')),
      graph('GPUs allocated per model', byModel('Allocated')),
      graph('GPUs idle per model', byModel('Idle')),
      graph('GPUs stranded per model', byModel('Stranded')),
    ],
    [
      graph('Pending GPU pods and oldest age', [
        catalogMetric(METRIC.gpuPodsPending, {}, { statistic: 'Maximum', label: 'pending for a node' }),
        catalogMetric(METRIC.gpuPodsAwaitingAdmission, {}, { statistic: 'Maximum', label: 'awaiting admission (gated)' }),
      ], {
        right: [catalogMetric(METRIC.oldestPendingGpuPodAge, {}, { statistic: 'Maximum', label: 'oldest (s)' })],
      }),
      graph('GPU pods pending by reason', catalogMetricsByDimension(METRIC.gpuPodsPendingByReason, { statistic: 'Maximum' }), { stacked: true }),
      graph('Deletion costs by range (pods)', catalogMetricsByDimension(METRIC.deletionCosts, { statistic: 'Maximum' }), { stacked: true }),
      graph('gpu-scheduler attempts by result', catalogMetricsByDimension(METRIC.gpuSchedulerAttempts, { statistic: 'Sum' }), {
        right: [catalogMetric(METRIC.gpuSchedulerAttemptLatency, {}, { statistic: 'Average', label: 'attempt latency (ms)' })],
      }),
    ],
    [
      graph('gpu-scheduler queue (pending pods by queue)', catalogMetricsByDimension(METRIC.gpuSchedulerPendingPods, { statistic: 'Maximum' }), { width: 12 }),
      graph('gpu-scheduler ready replicas', [catalogMetric(METRIC.gpuSchedulerReadyReplicas, {}, { statistic: 'Minimum', label: 'ready replicas' })], { width: 12 }),
    ],
  ];
}
