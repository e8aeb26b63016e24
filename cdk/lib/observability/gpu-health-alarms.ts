import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../../lambdas/observability/metric-catalog';
import type { AlarmsConfig } from '../../app-config/app-config';
import { catalogMetric } from './catalog-metrics';

const ONE_MINUTE = Duration.minutes(1);

/**
 * The GPU health alarms (docs/health.md), from the reconciler's per-minute
 * numbers, which it writes as 0 when all is well: too many GPUs out of
 * service, and a failing node that node repair has not replaced in time.
 */
export function gpuHealthAlarmProps(config: Pick<AlarmsConfig, 'gpusUnhealthyThreshold' | 'gpuNodeFailingMinutes'>): Record<string, cloudwatch.AlarmProps> {
  return {
    GpusUnhealthy: {
      metric: catalogMetric(METRIC.gpusUnhealthy, {}, { statistic: 'Maximum', period: ONE_MINUTE, label: 'unhealthy GPUs' }),
      threshold: config.gpusUnhealthyThreshold,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription: `${config.gpusUnhealthyThreshold} or more GPUs take no pod (AcceleratedHardwareReady=False, or withheld by the device plugin or the DRA driver): see GPU health on the dashboard and the reconciler's warning naming the failing nodes.`,
    },
    GpuNodeFailingTooLong: {
      metric: catalogMetric(METRIC.oldestFailingGpuNodeAge, {}, { statistic: 'Maximum', period: ONE_MINUTE, label: 'oldest failing GPU node (s)' }),
      threshold: config.gpuNodeFailingMinutes * 60,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      alarmDescription: `A GPU node has had AcceleratedHardwareReady=False for more than ${config.gpuNodeFailingMinutes} min: node repair (EKS node auto repair or Karpenter's repair policies) has not replaced it; check that one of them is enabled.`,
    },
  };
}
