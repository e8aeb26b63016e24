import { describe, expect, it } from 'vitest';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { gpuHealthAlarmProps } from '../../../../../cdk/lib/observability/gpu-health-alarms';

describe('gpuHealthAlarmProps', () => {
  it('alarms on unhealthy GPUs at the threshold and on a node failing longer than repair should take, from the reconciler\'s metrics', () => {
    const alarms = gpuHealthAlarmProps({ gpusUnhealthyThreshold: 4, gpuNodeFailingMinutes: 20 });
    expect(Object.keys(alarms)).toEqual(['GpusUnhealthy', 'GpuNodeFailingTooLong']);
    const metricName = (props: cloudwatch.AlarmProps | undefined) => (props?.metric as cloudwatch.Metric | undefined)?.metricName;
    expect([metricName(alarms.GpusUnhealthy), alarms.GpusUnhealthy?.threshold]).toEqual(['GpusUnhealthy', 4]);
    expect([metricName(alarms.GpuNodeFailingTooLong), alarms.GpuNodeFailingTooLong?.threshold]).toEqual(['OldestFailingGpuNodeAge', 1200]);
  });
});
