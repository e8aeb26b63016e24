import { parseInt32, toInt32 } from './int32';

/**
 * Rules that keep metric-driven annotations from turning into a stream of
 * object updates (every write is paid for by the API server and every
 * watcher): values snap to buckets, a value must leave its bucket by more than
 * a band before it moves, and only changed buckets are written.
 */
export interface WriteDiscipline {
  /** Width of a bucket; written values are multiples of it (floor). */
  readonly bucketSize: number;
  /** How far beyond the current bucket a new value must be before it moves. */
  readonly hysteresis: number;
}

export type WriteDecision =
  | { readonly kind: 'unchanged' }
  /** `value: null` removes the annotation (merge-patch null). */
  | { readonly kind: 'write'; readonly value: string | null; readonly magnitude: number };

export function quantize(value: number, bucketSize: number): number {
  return toInt32(Math.floor(value / bucketSize) * bucketSize);
}

export interface DesiredValue {
  /** The annotation as it is on the object now. */
  readonly current: string | undefined;
  /** The new raw value, or `undefined` when there is no signal and the annotation should go. */
  readonly raw: number | undefined;
  /** What an absent annotation means to its reader (pod-deletion-cost: 0; utilization: unknown). */
  readonly absentMeans: number | undefined;
}

export function decideWrite(desired: DesiredValue, discipline: WriteDiscipline): WriteDecision {
  const { current, raw } = desired;
  if (raw === undefined) {
    if (current === undefined) return { kind: 'unchanged' };
    return { kind: 'write', value: null, magnitude: Math.abs(parseInt32(current) ?? Number.MAX_SAFE_INTEGER) };
  }
  const target = quantize(raw, discipline.bucketSize);
  const effective = current === undefined ? desired.absentMeans : parseInt32(current);
  if (effective === undefined) {
    // Nothing usable there (unknown, or a value that is not an int32): write,
    // and before any mere adjustment.
    return { kind: 'write', value: String(target), magnitude: Number.MAX_SAFE_INTEGER };
  }
  if (target === effective) return { kind: 'unchanged' };
  const bucketStart = Math.floor(effective / discipline.bucketSize) * discipline.bucketSize;
  const bucketEnd = bucketStart + discipline.bucketSize;
  if (raw >= bucketStart - discipline.hysteresis && raw < bucketEnd + discipline.hysteresis) {
    return { kind: 'unchanged' };
  }
  return { kind: 'write', value: String(target), magnitude: Math.abs(target - effective) };
}

export interface WriteCandidate<T> {
  readonly item: T;
  readonly decision: WriteDecision;
  /** Stable tie-breaker so equal changes are written in a deterministic order. */
  readonly key: string;
}

export interface PlannedWrite<T> {
  readonly item: T;
  readonly value: string | null;
}

export interface WritePlan<T> {
  readonly writes: readonly PlannedWrite<T>[];
  readonly unchanged: number;
  /** Wanted a write but the per-run budget was spent; picked up by a later run. */
  readonly overBudget: number;
}

/** Keeps at most `maxWrites` writes, largest changes first. */
export function planWrites<T>(candidates: readonly WriteCandidate<T>[], maxWrites: number): WritePlan<T> {
  const wanted: { item: T; value: string | null; magnitude: number; key: string }[] = [];
  let unchanged = 0;
  for (const { item, decision, key } of candidates) {
    if (decision.kind === 'unchanged') unchanged += 1;
    else wanted.push({ item, value: decision.value, magnitude: decision.magnitude, key });
  }
  wanted.sort((a, b) => b.magnitude - a.magnitude || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const budget = Math.max(0, Math.floor(maxWrites));
  return {
    writes: wanted.slice(0, budget).map(({ item, value }) => ({ item, value })),
    unchanged,
    overBudget: Math.max(0, wanted.length - budget),
  };
}
