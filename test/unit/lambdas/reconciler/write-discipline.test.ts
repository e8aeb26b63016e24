import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INT32_MAX, INT32_MIN } from '../../../../lambdas/reconciler/int32';
import type { WriteCandidate, WriteDecision } from '../../../../lambdas/reconciler/write-discipline';
import { decideWrite, planWrites, quantize } from '../../../../lambdas/reconciler/write-discipline';

const costs = { bucketSize: 50, hysteresis: 10 };
const pod = (current: string | undefined, raw: number) => decideWrite({ current, raw, absentMeans: 0 }, costs);
const node = (current: string | undefined, raw: number | undefined) =>
  decideWrite({ current, raw, absentMeans: undefined }, { bucketSize: 10, hysteresis: 3 });

describe('quantize', () => {
  it('snaps down to the bucket start, negatives included', () => {
    expect(quantize(0, 50)).toBe(0);
    expect(quantize(49, 50)).toBe(0);
    expect(quantize(50, 50)).toBe(50);
    expect(quantize(1000, 50)).toBe(1000);
    expect(quantize(-50, 50)).toBe(-50);
    expect(quantize(-1, 50)).toBe(-50);
  });

  it('stays inside int32 at the edges', () => {
    expect(quantize(INT32_MIN, 1000)).toBe(INT32_MIN);
    expect(quantize(INT32_MAX, 7)).toBeLessThanOrEqual(INT32_MAX);
  });
});

describe('decideWrite for pod-deletion-cost', () => {
  it('writes the bucket when the value leaves the current bucket by more than the band', () => {
    expect(pod('100', 175)).toEqual({ kind: 'write', value: '150', magnitude: 50 });
    expect(pod('100', 60)).toEqual({ kind: 'write', value: '50', magnitude: 50 });
  });

  it('does not move inside the bucket or within the band around it', () => {
    expect(pod('100', 100)).toEqual({ kind: 'unchanged' });
    expect(pod('100', 149)).toEqual({ kind: 'unchanged' });
    expect(pod('100', 159)).toEqual({ kind: 'unchanged' }); // next bucket, but inside the band
    expect(pod('100', 90)).toEqual({ kind: 'unchanged' }); // previous bucket, inside the band
    expect(pod('100', 160).kind).toBe('write');
    expect(pod('100', 89).kind).toBe('write');
  });

  it('treats a missing annotation as 0, as Kubernetes does: no write for a zero cost', () => {
    expect(pod(undefined, 0)).toEqual({ kind: 'unchanged' });
    expect(pod(undefined, 5)).toEqual({ kind: 'unchanged' });
    expect(pod(undefined, -50)).toEqual({ kind: 'write', value: '-50', magnitude: 50 });
    expect(pod(undefined, 500)).toEqual({ kind: 'write', value: '500', magnitude: 500 });
  });

  it('repairs an annotation that is not an int32, ahead of ordinary changes', () => {
    for (const bad of ['abc', '1.5', '', ' 7', '99999999999', '+5', '007']) {
      expect(pod(bad, 120)).toEqual({ kind: 'write', value: '100', magnitude: Number.MAX_SAFE_INTEGER });
    }
  });

  it('keeps a value someone else wrote when it is in the same bucket', () => {
    expect(pod('123', 130)).toEqual({ kind: 'unchanged' });
  });
});

describe('decideWrite for node utilization (absent = unknown)', () => {
  it('writes when there is no annotation yet, even for 0 %', () => {
    expect(node(undefined, 0)).toEqual({ kind: 'write', value: '0', magnitude: Number.MAX_SAFE_INTEGER });
    expect(node(undefined, 57.5)).toMatchObject({ kind: 'write', value: '50' });
  });

  it('removes a stale annotation when the metric went silent, and leaves nothing alone', () => {
    expect(node('40', undefined)).toEqual({ kind: 'write', value: null, magnitude: 40 });
    expect(node(undefined, undefined)).toEqual({ kind: 'unchanged' });
  });

  it('applies the band', () => {
    expect(node('40', 52)).toEqual({ kind: 'unchanged' });
    expect(node('40', 53)).toEqual({ kind: 'write', value: '50', magnitude: 10 });
  });
});

describe('hysteresis properties', () => {
  it('a value written for raw r is never rewritten for any raw within the band of r', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 5000 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 0, max: 100 }),
        (raw, delta, bucketSize, hysteresis) => {
          const discipline = { bucketSize, hysteresis };
          const written = String(quantize(raw, bucketSize));
          const nudge = Math.min(delta, hysteresis);
          for (const next of [raw + nudge, raw - nudge]) {
            // Within the band of the original value AND inside or next to its bucket: no write.
            const decision = decideWrite({ current: written, raw: next, absentMeans: 0 }, discipline);
            const bucketStart = quantize(raw, bucketSize);
            if (next >= bucketStart - hysteresis && next < bucketStart + bucketSize + hysteresis) {
              expect(decision.kind).toBe('unchanged');
            }
          }
        },
      ),
    );
  });

  it('a write always lands on a bucket boundary', () => {
    fc.assert(
      fc.property(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 1, max: 1000 }), fc.option(fc.integer(), { nil: undefined }), (raw, size, current) => {
        const decision = decideWrite({ current: current === undefined ? undefined : String(current), raw, absentMeans: 0 }, { bucketSize: size, hysteresis: 0 });
        if (decision.kind === 'write' && decision.value !== null) expect(Math.abs(Number(decision.value) % size)).toBe(0);
      }),
    );
  });
});

describe('planWrites', () => {
  const candidate = (key: string, decision: WriteDecision): WriteCandidate<string> => ({ item: key, key, decision });
  const write = (magnitude: number): WriteDecision => ({ kind: 'write', value: String(magnitude), magnitude });

  it('keeps the largest changes first and counts the rest as over budget', () => {
    const plan = planWrites(
      [candidate('a', write(10)), candidate('b', write(500)), candidate('c', { kind: 'unchanged' }), candidate('d', write(60)), candidate('e', write(250))],
      2,
    );
    expect(plan.writes.map((w) => w.item)).toEqual(['b', 'e']);
    expect(plan.overBudget).toBe(2);
    expect(plan.unchanged).toBe(1);
  });

  it('breaks ties by key so runs are deterministic', () => {
    const plan = planWrites([candidate('z', write(50)), candidate('m', write(50)), candidate('a', write(50))], 2);
    expect(plan.writes.map((w) => w.item)).toEqual(['a', 'm']);
  });

  it('a budget of 0 writes nothing', () => {
    const plan = planWrites([candidate('a', write(50))], 0);
    expect(plan.writes).toEqual([]);
    expect(plan.overBudget).toBe(1);
  });

  it('never exceeds the budget (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 })), fc.nat({ max: 50 }), (magnitudes, budget) => {
        const plan = planWrites(magnitudes.map((m, i) => candidate(`p${i}`, write(m))), budget);
        expect(plan.writes.length).toBe(Math.min(budget, magnitudes.length));
        expect(plan.writes.length + plan.overBudget).toBe(magnitudes.length);
        const kept = plan.writes.map((w) => Number(w.value));
        const dropped = [...magnitudes].sort((a, b) => b - a).slice(kept.length);
        for (const d of dropped) for (const k of kept) expect(k).toBeGreaterThanOrEqual(d);
      }),
    );
  });
});
