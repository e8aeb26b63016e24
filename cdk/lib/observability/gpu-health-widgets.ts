import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { GPU_HEALTH_CLASSES, GPU_MODELS, METRIC } from '../../../lambdas/observability/metric-catalog';
import { catalogMetric } from './catalog-metrics';

/** How to read the GPU health row (the numbers: lambdas/scheduling/gpu-health-outcome.ts, docs/health.md). */
export const GPU_HEALTH_GUIDE = [
  '## GPU health: failing, degraded and withheld GPUs',
  '**Unhealthy**: every GPU of a node whose `AcceleratedHardwareReady` is False (the EKS node monitoring agent saw a fatal fault; no GPU pod goes there) and GPUs a node withholds (device plugin allocatable below the labelled count, DRA devices tainted NoSchedule). ' +
    '**Degraded**: GPUs of nodes labelled `gpu.nvidia.com/health=degraded` (warnings in the last hour, DRA taints of effect None) or whose GPU condition is Unknown; the extender places pods there only when nothing healthy fits. ' +
    '**Failing node age**: node repair (EKS auto repair, Karpenter\'s repair policies) should replace a failing node within minutes.',
].join('\n\n');

/** The "GPU health" row: single values, then unhealthy and degraded GPUs by model and by class over time. */
export function gpuHealthRows(): cloudwatch.IWidget[][] {
  const graph = (title: string, left: cloudwatch.IMetric[], options: Partial<cloudwatch.GraphWidgetProps> = {}): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({ title, left, width: 6, height: 6, ...options });
  const byModel = (State: 'Unhealthy' | 'Degraded'): cloudwatch.Metric[] =>
    GPU_MODELS.map((GpuModel) => catalogMetric(METRIC.gpuHealthByModel, { GpuModel, State }, { statistic: 'Maximum', label: GpuModel }));
  const byClass = (State: 'Unhealthy' | 'Degraded'): cloudwatch.Metric[] =>
    GPU_HEALTH_CLASSES.map((Class) => catalogMetric(METRIC.gpuHealthByClass, { Class, State }, { statistic: 'Maximum', label: Class }));
  return [
    [
      new cloudwatch.SingleValueWidget({
        title: 'GPU health now: unhealthy, degraded GPUs, failing nodes, oldest failing (s), GPU pods on degraded nodes',
        metrics: [
          catalogMetric(METRIC.gpusUnhealthy, {}, { statistic: 'Maximum', label: 'unhealthy GPUs' }),
          catalogMetric(METRIC.gpusDegraded, {}, { statistic: 'Maximum', label: 'degraded GPUs' }),
          catalogMetric(METRIC.gpuNodesFailing, {}, { statistic: 'Maximum', label: 'failing nodes' }),
          catalogMetric(METRIC.oldestFailingGpuNodeAge, {}, { statistic: 'Maximum', label: 'oldest failing (s)' }),
          catalogMetric(METRIC.gpuPodsOnDegradedNodes, {}, { statistic: 'Maximum', label: 'GPU pods on degraded nodes' }),
        ],
        width: 24,
        height: 4,
      }),
    ],
    [
      graph('Unhealthy GPUs per model', byModel('Unhealthy'), { stacked: true }),
      graph('Degraded GPUs per model', byModel('Degraded'), { stacked: true }),
      graph('Unhealthy GPUs by reason class', byClass('Unhealthy'), { stacked: true }),
      graph('Degraded GPUs by reason class', byClass('Degraded'), { stacked: true }),
    ],
  ];
}
