/**
 * Per-GPU memory as node affinity. Node affinity can only compare a label
 * with a number (`Gt`), while the extender judges memory by marketed size
 * (usableGpuMemoryMiB: an H100 whose driver reports 81559 MiB is an 80 GiB
 * GPU). Since usableGpuMemoryMiB never decreases as the report grows, the
 * reports that satisfy a request form a range above one threshold; these
 * functions find it with usableGpuMemoryMiB itself, so the admission policy's
 * CEL (which looks the threshold up in the bands below) and the extender
 * apply one rule.
 */
import { marketedSizesOf, MARKETED_GPU_MEMORY_GIB, usableGpuMemoryMiB } from './gpu-model';

/** A marketed size in MiB and the smallest report that counts as that size. */
export type MemoryBand = readonly [sizeMiB: number, lowestReportMiB: number];

/** The lowest report whose usable memory reaches `targetMiB` (usableGpuMemoryMiB is monotone: binary search). */
function lowestReportReaching(targetMiB: number, sizesGiB: readonly number[]): number {
  let low = 0;
  let high = targetMiB; // usable(report) >= report, so the target itself always reaches it
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (usableGpuMemoryMiB(middle, sizesGiB) >= targetMiB) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** One band per marketed size, smallest first. */
export function memoryBands(sizesGiB: readonly number[]): readonly MemoryBand[] {
  const sorted = [...new Set(sizesGiB)].sort((a, b) => a - b);
  return sorted.map((gib) => [gib * 1024, lowestReportReaching(gib * 1024, sorted)] as const);
}

/**
 * The `Gt` threshold for a request of `requestMiB` per GPU: a node whose
 * MiB label is above it has a GPU the extender lets the pod use. The first
 * band at or above the request decides (a smaller report can only reach the
 * request by rounding up to a marketed size); otherwise the request itself.
 */
export function memoryThresholdMiB(requestMiB: number, bands: readonly MemoryBand[]): number {
  const band = bands.find(([sizeMiB]) => sizeMiB >= requestMiB);
  return Math.min(requestMiB, band?.[1] ?? requestMiB) - 1;
}

/** The key of the bands of a GPU whose model is not named (or not known): every marketed size, as the extender reads an unknown model. */
export const ANY_MODEL = '*';

/** Bands per canonical model, and for ANY_MODEL: the tables the admission policy carries. */
export function memoryBandsByModel(): Readonly<Record<string, readonly MemoryBand[]>> {
  const byModel: Record<string, readonly MemoryBand[]> = { [ANY_MODEL]: memoryBands(marketedSizesOf('')) };
  for (const canonical of Object.keys(MARKETED_GPU_MEMORY_GIB)) byModel[canonical] = memoryBands(marketedSizesOf(canonical));
  return byModel;
}
