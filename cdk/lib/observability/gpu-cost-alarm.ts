import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { METRIC } from '../../../lambdas/observability/metric-catalog';
import type { AlarmsConfig } from '../../app-config/app-config';
import { catalogMetric } from './catalog-metrics';

/**
 * Reserved GPUs idle while GPU pods wait for new capacity, in every one of
 * `reservedGpusIdleMinutes` runs: capacity paid for twice. The reconciler
 * writes the number every run (0 when either side is empty).
 */
export function reservedIdleAlarmProps(config: AlarmsConfig): cloudwatch.AlarmProps {
  const minutes = config.reservedGpusIdleMinutes;
  return {
    metric: catalogMetric(METRIC.reservedGpusIdleWhileWaiting, {}, { statistic: 'Minimum', period: Duration.minutes(1), label: 'reserved GPUs idle while pods wait for capacity' }),
    threshold: 0,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: minutes,
    datapointsToAlarm: minutes,
    alarmDescription: `Reserved GPUs have sat idle for ${minutes} min while GPU pods wait for new capacity: the pods do not fit the reserved nodes (model, memory, CPU, affinity, taints) or the reservation is not in their NodePool. See docs/capacity.md.`,
  };
}
