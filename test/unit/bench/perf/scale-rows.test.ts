import { describe, expect, it } from 'vitest';
import type { ScaleResult } from '../../../../bench/perf/scale-bench';
import { scaleRows } from '../../../../bench/perf/scale-rows';
import type { ProxyCounts } from '../../../../local/proxies/kube-api-proxy';

const timing = { samples: 300, median: 5, p99: 90, min: 3, max: 150 };
const counts = (calls: Record<string, number>, responseBytes: number): ProxyCounts => ({
  calls,
  failed: {},
  openMs: Object.fromEntries(Object.entries(calls).map(([key, n]) => [key, n * 100])),
  responseBytes,
  wireBytes: responseBytes * 1.01,
});

/** 1,000 nodes + 10,000 pods listed in 22,000,000 bytes: 2,000 bytes an object. */
function result(overrides: { firstFilterMs?: number; warmBytes?: number; peakRssMiB?: number; vcpu?: number } = {}): ScaleResult {
  return {
    nodes: 1000,
    pods: 10000,
    commit: 'abc1234',
    uncommitted: [],
    vcpu: overrides.vcpu,
    setup: { controlPlaneMs: 5000, nodesMs: 3000, podsMs: 18000 },
    cold: {
      initMs: 40,
      startMs: 90,
      firstFilterMs: overrides.firstFilterMs ?? 1210,
      keptNodes: 400,
      viaProxyFirstFilterMs: 1500,
      api: counts({ 'LIST /api/v1/pods': 5, 'LIST /api/v1/nodes': 1 }, 22_000_000),
      readyRssMiB: 50,
      stats: { rssMiB: 160, heapUsedMiB: 60, peakRssMiB: 161 },
    },
    warm: {
      seconds: 60,
      ratePerSecond: 5,
      elapsedMs: 60_000,
      scheduled: 300,
      deleted: 300,
      failedFilters: 0,
      lateTicks: 0,
      filterMs: timing,
      prioritizeMs: timing,
      api: counts({ 'WATCH /api/v1/pods': 12, 'WATCH /api/v1/nodes': 12 }, overrides.warmBytes ?? 1_800_000),
    },
    peakRssMiB: overrides.peakRssMiB ?? 178,
    lambdaMemoryMiB: 512,
    httpTimeoutSeconds: 5,
    cacheTtlSeconds: 5,
  };
}

const row = (r: ScaleResult, measurement: string) => scaleRows(r).find((x) => x.measurement.startsWith(measurement));

describe('scaleRows', () => {
  it('gives the cold start as a share of httpTimeout, met at half of it or less', () => {
    expect(row(result(), 'cold container: init')).toMatchObject({ value: expect.stringContaining('1250 ms = 25 % of httpTimeout 5 s'), ok: true });
    expect(row(result({ firstFilterMs: 6100 }), 'cold container: init')).toMatchObject({ value: expect.stringContaining('123 %'), ok: false });
  });

  it('judges the refresh by bytes per pod changed against one listed object', () => {
    // 1,800,000 bytes for 600 changes = 3,000 bytes = 1.5 objects of 2,000.
    expect(row(result(), 'warm container: bytes read per pod')).toMatchObject({ value: expect.stringContaining('1.5×'), ok: true });
    // A re-list every 5 s: 12 listings a minute.
    expect(row(result({ warmBytes: 12 * 22_000_000 }), 'warm container: bytes read per pod')).toMatchObject({ value: expect.stringContaining('220.0×'), ok: false });
    expect(row(result(), 'warm container: bytes read per minute')?.value).toContain('= 0.08 full listings');
  });

  it('gives calls per minute with how long each was open, and memory against the Lambda size', () => {
    expect(row(result(), 'warm container, 5 pods/s')?.value).toBe('24: WATCH /api/v1/pods 12 (100 ms each), WATCH /api/v1/nodes 12 (100 ms each)');
    expect(row(result(), 'container peak RSS')).toMatchObject({ ok: true, target: '≤ Lambda memorySizeMiB 512' });
    expect(row(result({ peakRssMiB: 600 }), 'container peak RSS')?.ok).toBe(false);
  });

  it('names a CPU quota in the section, with the Lambda memory size that gets that much CPU', () => {
    expect(scaleRows(result())[0]?.section).toBe('Extender at scale (kube-apiserver, 1,000 nodes / 10,000 pods, abc1234)');
    expect(scaleRows(result({ vcpu: 0.29 }))[0]?.section).toBe('Extender at scale (kube-apiserver, 1,000 nodes / 10,000 pods, abc1234, containers at 0.29 vCPU ≈ a 513 MB Lambda)');
  });
});
