import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLabelerHandler } from '../../../../lambdas/labeler/labeler-handler';
import { METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { expectInvocationContext, invocationContext, logLines, onDemandContainer } from '../observability/lambda-invocation';
import type { StdoutCapture } from '../observability/stdout-capture';
import { captureStdout } from '../observability/stdout-capture';

let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  vi.unstubAllEnvs();
});

const stateChange = (state: string) => ({
  version: '0',
  id: 'evt-1',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  time: new Date().toISOString(),
  detail: { 'instance-id': 'i-0123456789abcdef0', state },
});

describe('the labeler handler with a Lambda context', () => {
  it('its lines carry the request id, cold_start only on the first invocation, and its metrics are published each time', async () => {
    onDemandContainer();
    // Neither event needs AWS or the cluster: one is refused, the other skipped.
    const handler = createLabelerHandler({ env: {} });
    const first = invocationContext(SERVICE.labeler, 'req-invalid');
    capture = captureStdout();
    expect(await handler({ source: 'aws.s3' }, first)).toMatchObject({ kind: 'rejected' });
    const firstRecords = capture.records();
    capture.restore();
    const firstLines = logLines(firstRecords);
    expect(firstLines.map((l) => [l.level, l.service])).toEqual([['ERROR', SERVICE.labeler]]);
    expectInvocationContext(firstLines, first, true);
    expect(firstRecords.filter((r) => '_aws' in r)).toEqual([
      expect.objectContaining({
        _aws: expect.objectContaining({ CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Kind']], Metrics: [{ Name: 'LabelerErrors', Unit: 'Count' }] }] }),
        Kind: 'InvalidEvent',
        LabelerErrors: 1,
      }),
    ]);

    const second = invocationContext(SERVICE.labeler, 'req-stopping');
    capture = captureStdout();
    expect(await handler(stateChange('stopping'), second)).toMatchObject({ result: 'ignored', reason: 'instanceNotRunning' });
    const secondLines = logLines(capture.records());
    expect(secondLines.map((l) => l.message)).toEqual(['ignored state-change']);
    expectInvocationContext(secondLines, second, false);
  });
});
