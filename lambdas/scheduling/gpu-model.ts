/**
 * GPU model names come in many spellings: our labels (`A100`), NVIDIA GPU
 * Feature Discovery (`NVIDIA-A100-SXM4-40GB`), Karpenter (`a100`), EC2
 * (`A10G`), the OpenB trace (`V100M16`). We compare them as token sets: a
 * wanted model matches a node when every token of the wanted name appears in
 * the node's name, ignoring case and vendor words. So `A100` matches
 * `NVIDIA-A100-SXM4-40GB`, `a100 40gb` matches it too, but `A10` does not
 * match `A10G` or `A100`.
 */

/** Words of a model name that name the maker or a product line, not the GPU; exported for the admission policy's copy of modelTokens. */
export const MODEL_VENDOR_WORDS: readonly string[] = ['nvidia', 'tesla', 'geforce'];
const VENDOR_WORDS = new Set(MODEL_VENDOR_WORDS);

/** Normalised tokens of a model name: lower case, vendor words dropped. */
export function modelTokens(name: string): readonly string[] {
  return name
    .toLowerCase()
    .split(/[\s_\-/]+/)
    .filter((token) => token !== '' && !VENDOR_WORDS.has(token));
}

/** A canonical key for a node's model, used to memoise matches per cycle. */
export function modelKey(name: string): string {
  return modelTokens(name).join('-');
}

/** True when every token of `wanted` appears among `nodeTokens`. */
export function modelMatches(wanted: readonly string[], nodeTokens: readonly string[]): boolean {
  if (wanted.length === 0) return false;
  return wanted.every((token) => nodeTokens.includes(token));
}

/** Splits a pod's model annotation into alternatives (`A100|H100`, `a100, h100`). */
export function splitModelAlternatives(text: string): readonly string[] {
  return text
    .split(/[|,]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

const MODEL_IDS = new Map<string, number>();

/**
 * A small positive integer per distinct model key, stable for the process, so
 * per-cycle memos can be arrays indexed by model instead of string-keyed
 * maps. 0 means "no model". Clusters have a handful of models, so the table
 * stays tiny.
 */
export function modelId(key: string): number {
  if (key === '') return 0;
  let id = MODEL_IDS.get(key);
  if (id === undefined) MODEL_IDS.set(key, (id = MODEL_IDS.size + 1));
  return id;
}

/** Suffix words of a product name that say how the GPU is exposed, not which GPU it is. */
const EXPOSURE_WORDS = new Set(['shared']);

/**
 * One display name per GPU model, whoever labelled the node: `a100`
 * (Karpenter), `NVIDIA-A100-SXM4-40GB` (GPU Feature Discovery),
 * `A100-SXM4-40GB-MIG-1g.5gb` (GFD with MIG) and `A100` (our labeler) are all
 * `A100`. The first model token, upper case; '' for a name with no model token.
 */
export function canonicalModel(name: string): string {
  const tokens = modelTokens(name).filter((token) => !EXPOSURE_WORDS.has(token));
  const mig = tokens.indexOf('mig');
  const first = (mig === 0 ? [] : tokens)[0];
  return first === undefined ? '' : first.toUpperCase();
}

/**
 * Marketed memory per GPU in GiB of the NVIDIA GPUs EC2 offers, by canonical
 * model. Users write these sizes (`80Gi` for an H100); the nodes report less
 * or a different number: EC2's DescribeInstanceTypes (our labeler, Karpenter,
 * Auto Mode) says 22888 MiB for the A10G's 24 GiB, and the driver's NVML
 * total (GPU Feature Discovery) keeps some back, 81559 MiB on an H100 or
 * 15360 MiB on a T4. Two sizes where EC2 offers two variants (A100 40/80 GB,
 * V100 16/32 GB): the one a node's figure rounds up to is meant.
 */
export const MARKETED_GPU_MEMORY_GIB: Readonly<Record<string, readonly number[]>> = {
  A10G: [24],
  A100: [40, 80],
  B200: [180],
  // 186 GB HBM3e per GPU of a GB200 NVL72 (13.4 TB over 72 GPUs): NVIDIA's figure; no EC2 or NVML number was found to check it against.
  GB200: [186],
  H100: [80],
  H200: [141],
  K80: [12],
  L4: [24],
  L40S: [48],
  M60: [8],
  T4: [16],
  T4G: [16],
  V100: [16, 32],
};

/**
 * How far below its marketed size a reported figure may be and still mean it:
 * the largest gap in the table's known pairs is EC2's A10G/L4 22888 MiB and
 * L40S 45776 MiB for 24 and 48 GiB (6.9 %), then NVML's T4 15360 MiB for
 * 16 GiB (6.25 %). 8 % takes them all and stays far from the next size a
 * user could mean (80 → 96 GiB is 20 %).
 */
export const REPORTED_MEMORY_TOLERANCE = 0.08;

const ALL_MARKETED_GIB: readonly number[] = [...new Set(Object.values(MARKETED_GPU_MEMORY_GIB).flat())].sort((a, b) => a - b);

/** The marketed sizes (GiB) a GPU of this canonical model comes in; every size of the table when the model is not in it. */
export function marketedSizesOf(canonical: string): readonly number[] {
  return MARKETED_GPU_MEMORY_GIB[canonical] ?? ALL_MARKETED_GIB;
}

/**
 * The memory a pod may ask of one GPU that reports `reportedMiB`: the
 * smallest of `sizesGiB` at or above the report when the report is within
 * REPORTED_MEMORY_TOLERANCE below it (the GPU is that marketed size, whoever
 * counted), else the report itself. Never less than the report.
 */
export function usableGpuMemoryMiB(reportedMiB: number, sizesGiB: readonly number[]): number {
  for (const gib of sizesGiB) {
    const marketed = gib * 1024;
    if (marketed >= reportedMiB) return reportedMiB >= marketed * (1 - REPORTED_MEMORY_TOLERANCE) ? marketed : reportedMiB;
  }
  return reportedMiB;
}
