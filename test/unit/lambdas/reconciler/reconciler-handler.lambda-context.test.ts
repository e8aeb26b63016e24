import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRICS_NAMESPACE, SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createReconcilerHandler } from '../../../../lambdas/reconciler/reconciler-handler';
import { expectInvocationContext, invocationContext, logLines, onDemandContainer } from '../observability/lambda-invocation';
import type { StdoutCapture } from '../observability/stdout-capture';
import { captureStdout } from '../observability/stdout-capture';

let capture: StdoutCapture | undefined;
afterEach(() => {
  capture?.restore();
  vi.unstubAllEnvs();
});

describe('the reconciler handler with a Lambda context', () => {
  it('a failed run logs with its request id, cold_start only on the first, and still publishes its error count', async () => {
    onDemandContainer();
    const handler = createReconcilerHandler({ env: { AWS_REGION: 'us-east-1', NODE_UTILIZATION_ENABLED: 'false', COST_BUCKET_SIZE: 'fifty' } });
    for (const [requestId, coldStart] of [
      ['req-1', true],
      ['req-2', false],
    ] as const) {
      const context = invocationContext(SERVICE.reconciler, requestId);
      capture = captureStdout();
      await expect(handler({ id: requestId }, context)).rejects.toThrow(/COST_BUCKET_SIZE/);
      const records = capture.records();
      capture.restore();
      const lines = logLines(records);
      expect(lines.map((l) => [l.level, l.message])).toEqual([['ERROR', 'invalid configuration']]);
      expectInvocationContext(lines, context, coldStart);
      expect(records.filter((r) => '_aws' in r)).toEqual([
        expect.objectContaining({
          _aws: expect.objectContaining({ CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['service', 'Kind']], Metrics: [{ Name: 'ReconcilerErrors', Unit: 'Count' }] }] }),
          Kind: 'Unknown',
          ReconcilerErrors: 1,
        }),
      ]);
    }
  });
});
