import { describe, expect, it } from 'vitest';
import type { KubeConnection } from '../../../../lambdas/kube/kube-http-client';
import { SERVICE } from '../../../../lambdas/observability/metric-catalog';
import { createTelemetry } from '../../../../lambdas/observability/telemetry';
import type { ExtenderObserver } from '../../../../lambdas/extender/observer';
import { wireExtender } from '../../../../lambdas/extender/wiring';

const telemetry = createTelemetry(SERVICE.extender);
const quiet: ExtenderObserver = { decision: () => undefined, failure: () => undefined, warn: () => undefined };

describe('wireExtender', () => {
  it('has no cluster cache without CLUSTER_NAME or an injected connection, KUBECONFIG or not', () => {
    expect(wireExtender({}, telemetry, { observer: quiet }).cache).toBeUndefined();
    expect(wireExtender({ KUBECONFIG: '/tmp/kubeconfig' }, telemetry, { observer: quiet }).cache).toBeUndefined();
  });

  it('lists through the injected connection, asked for on the first refresh only', async () => {
    let asked = 0;
    const kubeConnection = (): Promise<KubeConnection> => {
      asked += 1;
      return Promise.reject(new Error('injected connection refused'));
    };
    const { cache } = wireExtender({ CLUSTER_NAME: 'prod' }, telemetry, { observer: quiet, kubeConnection });
    expect(asked).toBe(0);
    await expect(cache?.snapshot()).rejects.toThrow('injected connection refused');
    expect(asked).toBe(1);
  });

  it("connects to CLUSTER_NAME's EKS cluster on the first refresh, so a bad name fails that refresh, not the wiring", async () => {
    const { cache } = wireExtender({ CLUSTER_NAME: 'bad name!', AWS_REGION: 'us-east-1' }, telemetry, { observer: quiet });
    expect(cache).toBeDefined();
    await expect(cache?.snapshot()).rejects.toThrow(/CLUSTER_NAME="bad name!" is invalid/);
  });
});
