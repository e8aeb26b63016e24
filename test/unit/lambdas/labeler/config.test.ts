import { describe, expect, it } from 'vitest';
import { labelerConfigFromEnv } from '../../../../lambdas/labeler/config';

describe('labelerConfigFromEnv', () => {
  it('has documented defaults', () => {
    expect(labelerConfigFromEnv({ CLUSTER_NAME: 'prod' })).toEqual({
      clusterName: 'prod',
      labels: { karpenterLabels: false, gfdLabels: false, manufacturers: ['NVIDIA'] },
      reconcileConcurrency: 8,
      nodePageSize: 500,
      nodeRegistration: { waitMs: 210_000, pollMaxMs: 5_000 },
    });
  });
  it('reads every setting', () => {
    expect(
      labelerConfigFromEnv({
        CLUSTER_NAME: 'prod',
        LABEL_KARPENTER_COMPAT: 'true',
        LABEL_GFD_COMPAT: 'yes',
        LABEL_GPU_MANUFACTURERS: 'NVIDIA, AMD',
        RECONCILE_CONCURRENCY: '16',
        NODE_PAGE_SIZE: '100',
        NODE_REGISTRATION_WAIT: '90s',
        NODE_REGISTRATION_POLL_MAX: '2s',
      }),
    ).toEqual({
      clusterName: 'prod',
      labels: { karpenterLabels: true, gfdLabels: true, manufacturers: ['NVIDIA', 'AMD'] },
      reconcileConcurrency: 16,
      nodePageSize: 100,
      nodeRegistration: { waitMs: 90_000, pollMaxMs: 2_000 },
    });
  });
  it.each([
    [{}, /CLUSTER_NAME is required/],
    [{ CLUSTER_NAME: 'prod', RECONCILE_CONCURRENCY: '0' }, /RECONCILE_CONCURRENCY="0" is invalid \(allowed: an integer, 1..64\)/],
    [{ CLUSTER_NAME: 'prod', LABEL_GFD_COMPAT: 'sometimes' }, /LABEL_GFD_COMPAT="sometimes"/],
    [{ CLUSTER_NAME: 'prod', NODE_PAGE_SIZE: 'lots' }, /NODE_PAGE_SIZE="lots"/],
    [{ CLUSTER_NAME: 'prod', NODE_REGISTRATION_WAIT: '300' }, /NODE_REGISTRATION_WAIT="300" is invalid/],
    [{ CLUSTER_NAME: 'prod', NODE_REGISTRATION_WAIT: '16m' }, /NODE_REGISTRATION_WAIT="16m" is invalid/],
    [{ CLUSTER_NAME: 'prod', NODE_REGISTRATION_POLL_MAX: '10ms' }, /NODE_REGISTRATION_POLL_MAX="10ms" is invalid/],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => labelerConfigFromEnv(env)).toThrow(message);
  });
});
