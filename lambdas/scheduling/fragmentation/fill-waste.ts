import { GPU_MILLI } from '../keys';

/**
 * What a device's free share is expected to leave unused once it is filled.
 * FGD (the paper's measure) asks whether the NEXT typical pod fits: a device
 * with 600 milli free is no fragment for a 470 share, though the 130 left
 * after it will be. This asks the question to the end: typical pods that fit
 * keep arriving, with their frequencies, until none fits; what is left then
 * is wasted. For f milli free and the fitting shares s with weights w_s:
 *   W(f) = Σ_{s ≤ f} w_s W(f − s) / Σ_{s ≤ f} w_s,   W(f) = f when none fits.
 * A whole free device that whole-GPU pods fill leaves nothing; one that
 * shares fill leaves what their sizes cannot add up to. Integer milli
 * (0..1000), so at most 1001 values per set of fitting shares.
 */
export class FillWaste {
  private readonly values = new Float64Array(GPU_MILLI + 1).fill(Number.NaN);

  /** `millis` (1..1000) and their `weights`, parallel; kept as given (FillWasteTables compares them). */
  constructor(
    readonly millis: Int32Array,
    readonly weights: Float64Array,
  ) {
    this.values[0] = 0;
  }

  /**
   * W(f), computed on first use from the W(f − s) it needs: a node's devices
   * ask for a few free values, so most of the 1001 are never needed (a
   * 5,000-node prioritize on a new snapshot builds a few hundred of these).
   */
  at(free: number): number {
    const f = free < 0 ? 0 : free > GPU_MILLI ? GPU_MILLI : Math.trunc(free);
    const known = this.values[f] as number;
    if (!Number.isNaN(known)) return known;
    let sum = 0;
    let mass = 0;
    for (let i = 0; i < this.millis.length; i++) {
      // A share of 0 would ask W(f) for W(f): count it as the least share.
      const milli = Math.max(1, this.millis[i] as number);
      const weight = this.weights[i] as number;
      if (milli <= f && weight > 0) {
        // Recursion depth is at most f / the smallest share: ≤ 1000 frames.
        sum += weight * this.at(f - milli);
        mass += weight;
      }
    }
    const value = mass > 0 ? sum / mass : f;
    this.values[f] = value;
    return value;
  }
}

/** W over the fitting shares `millis` (1..1000) with their `weights`, the first `count` of each (copied). */
export function fillWaste(millis: ArrayLike<number>, weights: ArrayLike<number>, count: number): FillWaste {
  return new FillWaste(Int32Array.from({ length: count }, (_, i) => millis[i] as number), Float64Array.from({ length: count }, (_, i) => weights[i] as number));
}

/**
 * fillWaste memoised by its inputs: a node's fitting shares change only at
 * CPU thresholds and with the shares its devices can still take, so a replay
 * or a 5,000-node request meets a few hundred sets at most, each built once.
 */
export class FillWasteTables {
  private readonly entries = new Map<number, FillWaste[]>();

  tableFor(millis: Int32Array, weights: Float64Array, count: number): FillWaste {
    let hash = 0x811c9dc5;
    for (let i = 0; i < count; i++) {
      hash = Math.imul(hash ^ (millis[i] as number), 0x01000193);
      hash = Math.imul(hash ^ Math.round((weights[i] as number) * 0x40000000), 0x01000193);
    }
    let bucket = this.entries.get(hash);
    if (bucket === undefined) this.entries.set(hash, (bucket = []));
    for (const table of bucket) if (sameItems(table, millis, weights, count)) return table;
    const table = new FillWaste(millis.slice(0, count), weights.slice(0, count));
    bucket.push(table);
    return table;
  }
}

function sameItems(entry: FillWaste, millis: Int32Array, weights: Float64Array, count: number): boolean {
  if (entry.millis.length !== count) return false;
  for (let i = 0; i < count; i++) if (entry.millis[i] !== millis[i] || entry.weights[i] !== weights[i]) return false;
  return true;
}
