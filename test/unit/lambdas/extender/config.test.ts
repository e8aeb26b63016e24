import { describe, expect, it } from 'vitest';
import { createExtender } from '../../../../lambdas/extender/extender-handler';
import { extenderConfigFromEnv, weightVariable } from '../../../../lambdas/extender/config';
import { DEFAULT_WEIGHTS } from '../../../../lambdas/scheduling';

describe('extender configuration', () => {
  it('defaults: no cluster access, 5 s TTL, library weights untouched', () => {
    expect(extenderConfigFromEnv({})).toEqual({
      clusterAccess: false,
      cacheTtlMs: 5000,
      cacheMaxStaleMs: 0,
      listPageSize: 2000,
      nodeLabelSelector: undefined,
      basePath: '',
      profile: { weights: {}, gpuScore: {}, capacityBlockEnd: { drainMarginMs: 40 * 60_000 } },
    });
  });

  it('reads every variable', () => {
    const env: Record<string, string> = {
      CLUSTER_NAME: 'prod',
      EXTENDER_CACHE_TTL: '2s',
      EXTENDER_CACHE_MAX_STALE: '1m',
      EXTENDER_LIST_PAGE_SIZE: '500',
      EXTENDER_NODE_LABEL_SELECTOR: 'gpu.nvidia.com/model',
      EXTENDER_BASE_PATH: '/gpu',
      EXTENDER_GPU_FIT_WEIGHT: '0.5',
      EXTENDER_GPU_UTILIZATION_WEIGHT: '0.5',
      EXTENDER_UNKNOWN_UTILIZATION_SCORE: '40',
      EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN: '1h',
    };
    for (const [i, plugin] of Object.keys(DEFAULT_WEIGHTS).entries()) env[weightVariable(plugin)] = String(i + 3);
    const config = extenderConfigFromEnv(env);
    expect(config).toMatchObject({ clusterAccess: true, cacheTtlMs: 2000, cacheMaxStaleMs: 60000, listPageSize: 500, nodeLabelSelector: 'gpu.nvidia.com/model', basePath: '/gpu' });
    expect(config.profile.gpuScore).toEqual({ fitWeight: 0.5, utilizationWeight: 0.5, unknownUtilizationScore: 40 });
    expect(Object.values(config.profile.weights ?? {})).toEqual(Object.keys(DEFAULT_WEIGHTS).map((_, i) => i + 3));
    expect(config.profile.capacityBlockEnd).toEqual({ drainMarginMs: 3_600_000 });
  });

  it('names weight variables after the plugins', () => {
    expect(weightVariable('GpuScore')).toBe('EXTENDER_WEIGHT_GPU_SCORE');
    expect(weightVariable('NetworkLocality')).toBe('EXTENDER_WEIGHT_NETWORK_LOCALITY');
  });

  it('CLUSTER_NAME alone means cluster access: a KUBECONFIG in the environment is no Lambda setting', () => {
    expect(extenderConfigFromEnv({ CLUSTER_NAME: 'prod' }).clusterAccess).toBe(true);
    expect(extenderConfigFromEnv({ KUBECONFIG: '/tmp/kubeconfig' }).clusterAccess).toBe(false);
  });

  it.each([
    ['EXTENDER_CACHE_TTL', '5'],
    ['EXTENDER_CACHE_TTL', '1h'],
    ['EXTENDER_WEIGHT_GPU_SCORE', '-1'],
    ['EXTENDER_GPU_FIT_WEIGHT', 'lots'],
    ['EXTENDER_LIST_PAGE_SIZE', '0'],
    ['EXTENDER_CACHE_MAX_STALE', '-1s'],
    ['EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN', '40'],
    ['EXTENDER_CAPACITY_BLOCK_DRAIN_MARGIN', '2d'],
  ])('%s=%s is an error naming the variable', (name, value) => {
    expect(() => extenderConfigFromEnv({ [name]: value })).toThrow(name);
  });

  it('a bad configuration does not crash the app: every request gets 500 naming the variable', async () => {
    const extender = createExtender({ env: { EXTENDER_CACHE_TTL: 'soon', POWERTOOLS_LOG_LEVEL: 'SILENT' } });
    const response = await extender.route({ method: 'GET', path: '/healthz', body: undefined });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ Error: expect.stringContaining('EXTENDER_CACHE_TTL') });
  });
});
