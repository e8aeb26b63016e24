import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeletionCostPolicy, PodSignals } from '../../../../lambdas/reconciler/deletion-cost-policy';
import { deletionCostCoverage, podDeletionCost, SEED_DELETION_COST_POLICY } from '../../../../lambdas/reconciler/deletion-cost-policy';
import { INT32_MAX, INT32_MIN } from '../../../../lambdas/reconciler/int32';

const seed = SEED_DELETION_COST_POLICY;
const warm = 3600;

function cost(signals: Partial<PodSignals>, ...rest: [readySeconds?: number | undefined, policy?: DeletionCostPolicy]) {
  // An explicit `undefined` means "not Ready", so only a missing argument takes the default.
  const readySeconds = rest.length === 0 ? warm : rest[0];
  const policy = rest[1] ?? seed;
  return podDeletionCost(
    {
      signals: { activeRequests: undefined, cacheHitRate: undefined, avgResponseTimeMs: undefined, ...signals },
      readySeconds,
    },
    policy,
  );
}

describe('podDeletionCost: the seed formula', () => {
  it('adds requests×5, hit rate×100 and the latency bonus', () => {
    expect(cost({ activeRequests: 10, cacheHitRate: 0.8, avgResponseTimeMs: 50 })).toEqual({ raw: 50 + 80 + 50, basis: 'metrics' });
    expect(cost({ activeRequests: 10, cacheHitRate: 0.8, avgResponseTimeMs: 250 }).raw).toBe(50 + 80 + 20);
    expect(cost({ activeRequests: 10, cacheHitRate: 0.8, avgResponseTimeMs: 900 }).raw).toBe(50 + 80);
  });

  it('uses strict thresholds: exactly 100 ms earns the moderate bonus, exactly 500 ms none', () => {
    expect(cost({ avgResponseTimeMs: 99.9 }).raw).toBe(50);
    expect(cost({ avgResponseTimeMs: 100 }).raw).toBe(20);
    expect(cost({ avgResponseTimeMs: 500 }).raw).toBe(0);
  });

  it('caps at 1000', () => {
    expect(cost({ activeRequests: 400, cacheHitRate: 1, avgResponseTimeMs: 10 }).raw).toBe(1000);
  });

  it('truncates fractions down to an integer', () => {
    expect(cost({ activeRequests: 1.99 }).raw).toBe(9);
  });

  it('honours configured weights, thresholds and cap', () => {
    const policy = { ...seed, activeRequestsWeight: 2, cacheHitRateWeight: 10, fastLatencyMs: 10, fastLatencyBonus: 7, maxCost: 30 };
    expect(cost({ activeRequests: 3, cacheHitRate: 0.5, avgResponseTimeMs: 5 }, warm, policy).raw).toBe(6 + 5 + 7);
    expect(cost({ activeRequests: 100 }, warm, policy).raw).toBe(30);
  });
});

describe('podDeletionCost: broken and missing data', () => {
  it('a pod with no datapoint at all gets the no-signal cost (0 by default), not the warm-up cost', () => {
    expect(cost({})).toEqual({ raw: 0, basis: 'noSignal' });
    expect(cost({}, warm, { ...seed, noSignalCost: 7 })).toEqual({ raw: 7, basis: 'noSignal' });
  });

  it('treats NaN, ±Infinity and negative readings as no signal for that metric', () => {
    expect(cost({ activeRequests: Number.NaN, cacheHitRate: 0.5 }).raw).toBe(50);
    expect(cost({ activeRequests: -20, cacheHitRate: 0.5 }).raw).toBe(50);
    expect(cost({ activeRequests: Number.POSITIVE_INFINITY, cacheHitRate: 0.5 }).raw).toBe(50);
    expect(cost({ avgResponseTimeMs: -1 })).toEqual({ raw: 0, basis: 'noSignal' });
    expect(cost({ activeRequests: Number.NaN, cacheHitRate: Number.NEGATIVE_INFINITY, avgResponseTimeMs: Number.NaN }).basis).toBe('noSignal');
  });

  it('clamps a cache hit rate above 1 and huge counts to the cap', () => {
    expect(cost({ cacheHitRate: 85 }).raw).toBe(100);
    expect(cost({ activeRequests: Number.MAX_VALUE }).raw).toBe(1000);
    expect(cost({ activeRequests: 1e308 }, warm, { ...seed, activeRequestsWeight: 1e10, maxCost: INT32_MAX }).raw).toBe(INT32_MAX);
  });

  it('negative weights cannot push the cost below int32', () => {
    expect(cost({ activeRequests: 1e300 }, warm, { ...seed, activeRequestsWeight: -1 }).raw).toBe(INT32_MIN);
  });
});

describe('podDeletionCost: warm-up', () => {
  it('gives -50 to a pod Ready for less than the warm-up period, whatever its metrics', () => {
    expect(cost({ activeRequests: 100, cacheHitRate: 1 }, 299)).toEqual({ raw: -50, basis: 'warmup' });
    expect(cost({ activeRequests: 100, cacheHitRate: 1 }, 300).basis).toBe('metrics');
  });

  it('treats a pod that is not Ready, or Ready "in the future" (clock skew), as warming up', () => {
    expect(cost({ activeRequests: 100 }, undefined).basis).toBe('warmup');
    expect(cost({ activeRequests: 100 }, -5).basis).toBe('warmup');
    expect(cost({ activeRequests: 100 }, Number.NaN).basis).toBe('warmup');
  });

  it('ranks warming pods below silent pods, and silent pods below any useful pod', () => {
    const warming = cost({}, 10).raw;
    const silent = cost({}).raw;
    const useful = cost({ activeRequests: 1 }).raw;
    expect(warming).toBeLessThan(silent);
    expect(silent).toBeLessThan(useful);
  });
});

describe('podDeletionCost: properties', () => {
  const reading = fc.option(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 1e308)), {
    nil: undefined,
  });
  const policy = fc.record({
    activeRequestsWeight: fc.double({ noNaN: true, min: -1e12, max: 1e12 }),
    cacheHitRateWeight: fc.double({ noNaN: true, min: -1e12, max: 1e12 }),
    fastLatencyMs: fc.double({ noNaN: true, min: 0, max: 1e6 }),
    fastLatencyBonus: fc.double({ noNaN: true, min: -1e12, max: 1e12 }),
    moderateLatencyMs: fc.double({ noNaN: true, min: 0, max: 1e6 }),
    moderateLatencyBonus: fc.double({ noNaN: true, min: -1e12, max: 1e12 }),
    maxCost: fc.integer({ min: INT32_MIN, max: INT32_MAX }),
    warmupSeconds: fc.integer({ min: 0, max: 86_400 }),
    warmupCost: fc.integer({ min: INT32_MIN, max: INT32_MAX }),
    noSignalCost: fc.integer({ min: INT32_MIN, max: INT32_MAX }),
    unhealthyNodeCost: fc.integer({ min: INT32_MIN, max: INT32_MAX }),
  });

  it('always yields an integer inside int32, never above the cap when metric-driven', () => {
    fc.assert(
      fc.property(reading, reading, reading, fc.option(fc.double(), { nil: undefined }), policy, (a, h, l, ready, p) => {
        const result = cost({ activeRequests: a, cacheHitRate: h, avgResponseTimeMs: l }, ready, p);
        expect(Number.isInteger(result.raw)).toBe(true);
        expect(result.raw).toBeGreaterThanOrEqual(INT32_MIN);
        expect(result.raw).toBeLessThanOrEqual(INT32_MAX);
        if (result.basis === 'metrics') expect(result.raw).toBeLessThanOrEqual(p.maxCost);
      }),
    );
  });

  it('with the seed policy, stays in -50..1000 and never decreases as active requests grow', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true }), reading, reading, (r1, r2, h, l) => {
        const [low, high] = r1 <= r2 ? [r1, r2] : [r2, r1];
        const a = cost({ activeRequests: low, cacheHitRate: h, avgResponseTimeMs: l }).raw;
        const b = cost({ activeRequests: high, cacheHitRate: h, avgResponseTimeMs: l }).raw;
        expect(a).toBeLessThanOrEqual(b);
        expect(a).toBeGreaterThanOrEqual(-50);
        expect(b).toBeLessThanOrEqual(1000);
      }),
    );
  });
});

describe('deletionCostCoverage: only a ReplicaSet reads the cost', () => {
  it('covers ReplicaSet-owned pods (Deployments scale down through their ReplicaSet)', () => {
    expect(deletionCostCoverage({ apiVersion: 'apps/v1', kind: 'ReplicaSet' })).toBe('covered');
  });

  it('names the owner kind of every other pod', () => {
    expect(deletionCostCoverage({ apiVersion: 'apps/v1', kind: 'StatefulSet' })).toBe('StatefulSet');
    expect(deletionCostCoverage({ apiVersion: 'apps/v1', kind: 'DaemonSet' })).toBe('DaemonSet');
    expect(deletionCostCoverage({ apiVersion: 'batch/v1', kind: 'Job' })).toBe('Job');
    expect(deletionCostCoverage(undefined)).toBe('None');
  });

  it('does not take a look-alike kind of another API group for a built-in controller', () => {
    expect(deletionCostCoverage({ apiVersion: 'example.com/v1', kind: 'ReplicaSet' })).toBe('Other');
    expect(deletionCostCoverage({ apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob' })).toBe('Other');
    expect(deletionCostCoverage({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'Job' })).toBe('Other');
  });
});
