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
 * (0..1000), so one table of 1001 entries per set of fitting shares.
 */
export function fillWasteTable(millis: ArrayLike<number>, weights: ArrayLike<number>, count: number): Float64Array {
  const table = new Float64Array(GPU_MILLI + 1);
  for (let f = 1; f <= GPU_MILLI; f++) {
    let sum = 0;
    let mass = 0;
    for (let i = 0; i < count; i++) {
      const milli = millis[i] as number;
      const weight = weights[i] as number;
      if (milli <= f && weight > 0) {
        sum += weight * (table[f - milli] as number);
        mass += weight;
      }
    }
    table[f] = mass > 0 ? sum / mass : f;
  }
  return table;
}

interface Entry {
  readonly millis: Int32Array;
  readonly weights: Float64Array;
  readonly table: Float64Array;
}

/**
 * fillWasteTable memoised by its inputs: a node's fitting shares change only
 * at CPU thresholds and multi-GPU counts, so a replay or a 5,000-node request
 * builds a few hundred tables at most, each once.
 */
export class FillWasteTables {
  private readonly entries = new Map<number, Entry[]>();

  tableFor(millis: Int32Array, weights: Float64Array, count: number): Float64Array {
    let hash = 0x811c9dc5;
    for (let i = 0; i < count; i++) {
      hash = Math.imul(hash ^ (millis[i] as number), 0x01000193);
      hash = Math.imul(hash ^ Math.round((weights[i] as number) * 0x40000000), 0x01000193);
    }
    let bucket = this.entries.get(hash);
    if (bucket === undefined) this.entries.set(hash, (bucket = []));
    for (const entry of bucket) if (sameItems(entry, millis, weights, count)) return entry.table;
    const entry: Entry = { millis: millis.slice(0, count), weights: weights.slice(0, count), table: fillWasteTable(millis, weights, count) };
    bucket.push(entry);
    return entry.table;
  }
}

function sameItems(entry: Entry, millis: Int32Array, weights: Float64Array, count: number): boolean {
  if (entry.millis.length !== count) return false;
  for (let i = 0; i < count; i++) if (entry.millis[i] !== millis[i] || entry.weights[i] !== weights[i]) return false;
  return true;
}
