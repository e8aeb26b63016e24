import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../lambdas/env';
import { createReconcilerHandler } from '../../../../lambdas/reconciler/reconciler-handler';
import { invocationContext } from '../observability/lambda-invocation';

describe('reconciler handler', () => {
  it('fails a run with a ConfigError naming the variable, and re-reads the config on the next run', async () => {
    const env: Record<string, string> = { AWS_REGION: 'us-east-1', NODE_UTILIZATION_ENABLED: 'false', COST_BUCKET_SIZE: 'fifty' };
    const invoke = createReconcilerHandler({ env });
    const handler = (event: Parameters<typeof invoke>[0]) => invoke(event, invocationContext('gpu-metrics-reconciler', 'req-1'));
    await expect(handler({ id: 'evt-1' })).rejects.toThrow(ConfigError);
    await expect(handler(undefined)).rejects.toThrow(/COST_BUCKET_SIZE="fifty" is invalid/);
    env.COST_BUCKET_SIZE = '50';
    // Now the configuration is valid and the failure moves on to the cluster connection.
    await expect(handler({})).rejects.toThrow(/CLUSTER_NAME is required/);
  });
});
