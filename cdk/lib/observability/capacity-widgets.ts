import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../../lambdas/observability/metric-catalog';
import { catalogMetric } from './catalog-metrics';

const ONE_MINUTE = Duration.minutes(1);

/** How to read the capacity row (the numbers: lambdas/reconciler/capacity.ts, docs/reconciler.md). */
export const CAPACITY_GUIDE = [
  '## Capacity: what the GPU nodes cost and do',
  '**Waiting for capacity**: pending GPU pods Karpenter is bringing a node up for (nominated for a NodeClaim being launched, or a node not Ready yet). **Waiting for a fit**: the other pending GPU pods; nothing is being launched for them: ' +
    'Karpenter believes a Ready node fits them and the scheduler disagrees (a constraint only the extender knows, see docs/karpenter.md), or no NodePool can launch one (requirements, limits). ' +
    '**Terminated** = launched − the change in GPU nodes, per minute. **Idle GPU-hours** and **cost** sum the minutes of the time range; prices are on-demand list prices (GPU_PRICES_USD), Spot nodes counted at them.',
].join('\n\n');

/** Average × the period in hours: a per-minute gauge summed over the time range (GPU-hours, dollars). */
function overTheRange(id: string, metric: cloudwatch.IMetric, label: string, period = ONE_MINUTE): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({ expression: `${id} * PERIOD(${id}) / 3600`, usingMetrics: { [id]: metric }, label, period });
}

/** Launched GPU nodes per minute, and terminated ones: launched minus the change in the GPU node count, never below 0. */
function launchedAndTerminated(): cloudwatch.IMetric[] {
  const launched = catalogMetric(METRIC.gpuNodesLaunched, {}, { statistic: 'Sum', label: 'launched' });
  const nodes = catalogMetric(METRIC.gpuNodes, {}, { statistic: 'Average' });
  return [
    launched,
    new cloudwatch.MathExpression({
      expression: 'IF(FILL(launchedn, 0) - DIFF(nodes) > 0, FILL(launchedn, 0) - DIFF(nodes), 0)',
      usingMetrics: { launchedn: catalogMetric(METRIC.gpuNodesLaunched, {}, { statistic: 'Sum' }), nodes },
      label: 'terminated',
      period: ONE_MINUTE,
    }),
  ];
}

/** The capacity row under the outcome's top row: single values, then launches and cost over time. */
export function capacityRows(): cloudwatch.IWidget[][] {
  const single = (title: string, metrics: cloudwatch.IMetric[], options: Partial<cloudwatch.SingleValueWidgetProps> = {}): cloudwatch.SingleValueWidget =>
    new cloudwatch.SingleValueWidget({ title, metrics, width: 6, height: 4, ...options });
  const graph = (title: string, left: cloudwatch.IMetric[], options: Partial<cloudwatch.GraphWidgetProps> = {}): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({ title, left, width: 6, height: 6, ...options });
  const idle = catalogMetric(METRIC.gpusIdle, {}, { statistic: 'Average' });
  const cost = catalogMetric(METRIC.gpuNodesHourlyCost, {}, { statistic: 'Average' });
  return [
    [
      single('GPU nodes now: count, $ per hour', [
        catalogMetric(METRIC.gpuNodes, {}, { statistic: 'Maximum', label: 'GPU nodes' }),
        catalogMetric(METRIC.gpuNodesHourlyCost, {}, { statistic: 'Maximum', label: '$ / hour' }),
        catalogMetric(METRIC.gpuNodesUnpriced, {}, { statistic: 'Maximum', label: 'without a price' }),
      ]),
      single('Pending GPU pods: waiting for capacity, for a fit', [
        catalogMetric(METRIC.gpuPodsWaitingForCapacity, {}, { statistic: 'Maximum', label: 'for capacity' }),
        catalogMetric(METRIC.gpuPodsWaitingForFit, {}, { statistic: 'Maximum', label: 'for a fit' }),
      ]),
      single('Over the time range: launched, idle GPU-hours, $', [
        catalogMetric(METRIC.gpuNodesLaunched, {}, { statistic: 'Sum', label: 'GPU nodes launched' }),
        overTheRange('idle', idle, 'idle GPU-hours'),
        overTheRange('cost', cost, '$ on GPU nodes'),
      ], { setPeriodToTimeRange: true }),
      single('GPU nodes being drained', [catalogMetric(METRIC.gpuNodesTerminating, {}, { statistic: 'Maximum', label: 'terminating' })]),
    ],
    [
      graph('GPU nodes launched and terminated (per minute)', launchedAndTerminated(), {
        right: [catalogMetric(METRIC.gpuNodes, {}, { statistic: 'Maximum', label: 'GPU nodes' })],
      }),
      graph('Pending GPU pods: for capacity vs for a fit', [
        catalogMetric(METRIC.gpuPodsWaitingForCapacity, {}, { statistic: 'Maximum', label: 'for capacity' }),
        catalogMetric(METRIC.gpuPodsWaitingForFit, {}, { statistic: 'Maximum', label: 'for a fit' }),
      ], { stacked: true }),
      graph('Idle GPU-hours (per hour)', [
        overTheRange('idleh', catalogMetric(METRIC.gpusIdle, {}, { statistic: 'Average', period: Duration.hours(1) }), 'idle GPU-hours', Duration.hours(1)),
      ], { period: Duration.hours(1) }),
      graph('GPU nodes: $ per hour', [catalogMetric(METRIC.gpuNodesHourlyCost, {}, { statistic: 'Average', label: '$ / hour' })]),
    ],
  ];
}
