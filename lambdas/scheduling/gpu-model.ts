/**
 * GPU model names come in many spellings: our labels (`A100`), NVIDIA GPU
 * Feature Discovery (`NVIDIA-A100-SXM4-40GB`), Karpenter (`a100`), EC2
 * (`A10G`), the OpenB trace (`V100M16`). We compare them as token sets: a
 * wanted model matches a node when every token of the wanted name appears in
 * the node's name, ignoring case and vendor words. So `A100` matches
 * `NVIDIA-A100-SXM4-40GB`, `a100 40gb` matches it too, but `A10` does not
 * match `A10G` or `A100`.
 */

const VENDOR_WORDS = new Set(['nvidia', 'tesla', 'geforce']);

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
