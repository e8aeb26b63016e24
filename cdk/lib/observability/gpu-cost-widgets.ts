import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { GPU_MODELS, METRIC } from '../../../lambdas/observability/metric-catalog';
import { catalogMetric, catalogSearch } from './catalog-metrics';

const ONE_MINUTE = Duration.minutes(1);
const ONE_HOUR = Duration.hours(1);

/** How to read the GPU cost row (the numbers: lambdas/reconciler/reserved-capacity.ts, namespace-cost.ts; docs/capacity.md). */
export const GPU_COST_GUIDE = [
  '## GPU cost: reserved GPUs and cost per team',
  '**Reserved** GPUs are on nodes Karpenter (`reserved`), an EKS node group (`CAPACITY_BLOCK`) or the labeler (from EC2) marks reserved: paid for, used or not. ' +
    '**Idle while pods wait for capacity** (the alarm): reserved GPUs idle while Karpenter launches new nodes for pending GPU pods. ' +
    '**Per namespace**: GPUs the namespace\'s pods hold and their share of the node prices, the top COST_TOP_NAMESPACES namespaces and `(other)`; idle GPUs are nobody\'s (**idle**). ' +
    'GPU-hours per hour = the average GPUs held in that hour. Prices: the reconciler\'s table, GPU_PRICES_USD, and RESERVATION_PRICES_USD for reservations.',
].join('\n\n');

/** One metric per GPU model of ReservedGpus in one state, or of the idle cost. */
function perModel(state: 'Allocatable' | 'Idle' | 'Cost', options: { statistic: string; period?: Duration }): cloudwatch.Metric[] {
  return GPU_MODELS.map((GpuModel) =>
    state === 'Cost'
      ? catalogMetric(METRIC.reservedGpusIdleHourlyCost, { GpuModel }, { ...options, label: GpuModel })
      : catalogMetric(METRIC.reservedGpus, { GpuModel, State: state }, { ...options, label: GpuModel }),
  );
}

/** The sum over models, a missing model counting 0. */
function sumOver(prefix: string, metrics: readonly cloudwatch.Metric[], label: string): cloudwatch.MathExpression {
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`${prefix}${i}`, metric]));
  return new cloudwatch.MathExpression({
    expression: Object.keys(usingMetrics).map((id) => `FILL(${id}, 0)`).join(' + '),
    usingMetrics,
    label,
    period: ONE_MINUTE,
  });
}

/** A SEARCH over a catalog metric with an open dimension, one line per value. */
function search(metric: (typeof METRIC)[keyof typeof METRIC], statistic: string, period: Duration): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({ expression: catalogSearch(metric, statistic, period.toSeconds()), usingMetrics: {}, label: '', period });
}

/** The "GPU cost" row: reserved GPUs now, idle reserved by model, dollars and GPU-hours per namespace. */
export function gpuCostRows(): cloudwatch.IWidget[][] {
  const latest = { statistic: 'Maximum' };
  return [
    [
      new cloudwatch.SingleValueWidget({
        title: 'Reserved GPUs now: all, idle, idle $ per hour',
        metrics: [
          sumOver('alloc', perModel('Allocatable', latest), 'reserved GPUs'),
          sumOver('idle', perModel('Idle', latest), 'idle'),
          sumOver('cost', perModel('Cost', latest), 'idle $ / hour'),
          catalogMetric(METRIC.reservedGpusIdleWhileWaiting, {}, { statistic: 'Maximum', label: 'idle while pods wait for capacity' }),
        ],
        width: 6,
        height: 6,
      }),
      new cloudwatch.GraphWidget({ title: 'Reserved GPUs idle, by model', left: perModel('Idle', { statistic: 'Average' }), stacked: true, width: 6, height: 6 }),
      new cloudwatch.GraphWidget({
        title: 'GPU $ per hour per namespace, and idle',
        left: [search(METRIC.namespaceGpuHourlyCost, 'Average', ONE_MINUTE), catalogMetric(METRIC.gpusIdleHourlyCost, {}, { statistic: 'Average', label: 'idle (nobody\'s)' })],
        stacked: true,
        width: 6,
        height: 6,
      }),
      new cloudwatch.GraphWidget({
        title: 'GPU-hours per namespace (per hour)',
        left: [search(METRIC.namespaceGpusAllocated, 'Average', ONE_HOUR)],
        stacked: true,
        period: ONE_HOUR,
        width: 6,
        height: 6,
      }),
    ],
  ];
}
