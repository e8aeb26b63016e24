// The tables the GPU-intent admission policies carry, written as CEL
// literals from the library's own tables (gpu-label-values.ts,
// gpu-memory-thresholds.ts, gpu-model.ts), never typed by hand: a new model
// or marketed size reaches the policies with the next deploy.
import { MODEL_VENDOR_WORDS } from '../../../lambdas/scheduling/gpu-model';
import { modelLabelValues, GPU_MODEL_SPELLINGS, type Labeller } from '../../../lambdas/scheduling/gpu-label-values';
import { memoryBandsByModel } from '../../../lambdas/scheduling/gpu-memory-thresholds';
import { modelTokens } from '../../../lambdas/scheduling/gpu-model';
import { AUTO_MODE_LABEL, GFD_LABEL, KARPENTER_LABEL, NODE_LABEL } from '../../../lambdas/scheduling/keys';

/**
 * Each labeller's model and memory keys, in the order of the translated
 * node-affinity terms: Karpenter tries a pod's required terms in order and
 * relaxes to the next, so its own keys come first; Auto Mode's next (the
 * same EC2 numbers), then ours, then GPU Feature Discovery's.
 */
export const AFFINITY_LABELLERS: readonly { readonly labeller: Labeller; readonly modelKey: string; readonly memoryKey: string }[] = [
  { labeller: 'karpenter', modelKey: KARPENTER_LABEL.gpuName, memoryKey: KARPENTER_LABEL.gpuMemory },
  { labeller: 'autoMode', modelKey: AUTO_MODE_LABEL.gpuName, memoryKey: AUTO_MODE_LABEL.gpuMemory },
  { labeller: 'ours', modelKey: NODE_LABEL.gpuModel, memoryKey: NODE_LABEL.gpuMemory },
  { labeller: 'gfd', modelKey: GFD_LABEL.product, memoryKey: GFD_LABEL.memory },
];

export const celString = (text: string): string => JSON.stringify(text);
export const celList = (items: readonly string[]): string => `[${items.join(', ')}]`;
export const celStrings = (values: readonly string[]): string => celList(values.map(celString));

/** One known label value: the model it names, who writes it, and its tokens as modelTokens reads them. */
export interface KnownValue {
  readonly model: string;
  readonly labeller: Labeller;
  readonly value: string;
  readonly tokens: readonly string[];
}

export function knownModelValues(): readonly KnownValue[] {
  return Object.keys(GPU_MODEL_SPELLINGS).flatMap((model) =>
    AFFINITY_LABELLERS.flatMap(({ labeller }) =>
      modelLabelValues(model, labeller).map((value) => ({ model, labeller, value, tokens: modelTokens(value) })),
    ),
  );
}

/** The known values as a CEL list of maps (`m` model, `l` labeller, `v` value, `t` tokens); dyn() because CEL map literals must be of one value type. */
export function knownModelValuesCel(): string {
  return celList(
    knownModelValues().map(
      (known) => `{"m": dyn(${celString(known.model)}), "l": dyn(${celString(known.labeller)}), "v": dyn(${celString(known.value)}), "t": dyn(${celStrings(known.tokens)})}`,
    ),
  );
}

/** Memory bands per canonical model (and `*`) as a CEL map of lists of [sizeMiB, lowestReportMiB]. */
export function memoryBandsCel(): string {
  const entries = Object.entries(memoryBandsByModel()).map(
    ([model, bands]) => `${celString(model)}: ${celList(bands.map(([size, lowest]) => `[${size}, ${lowest}]`))}`,
  );
  return `{${entries.join(', ')}}`;
}

/**
 * CEL for modelTokens of each alternative of a model annotation `text` (a
 * CEL string expression): split on `|` and `,` (splitModelAlternatives),
 * then on white space, `_`, `-` and `/`, lower case, vendor words dropped.
 */
export function alternativeTokensCel(text: string): string {
  const separators = ['_', '/', ' ', '\t'].map((sep) => `.replace(${celString(sep)}, "-")`).join('');
  return (
    `${text}.replace(",", "|").split("|")` +
    `.map(a, a.lowerAscii()${separators}.split("-").filter(t, t != "" && !(t in ${celStrings(MODEL_VENDOR_WORDS)})))` +
    `.filter(ts, size(ts) > 0)`
  );
}

/** The alternatives' count before empty ones are dropped, to tell `H100||` from `H100`. */
export function rawAlternativesCel(text: string): string {
  return `${text}.replace(",", "|").split("|").filter(a, a.trim() != "")`;
}

/**
 * CEL for MiB of a memory annotation `text` as parseMiB reads it (a bare
 * number is MiB, rounded up; a quantity is bytes), or -1 when it is neither.
 */
export function memoryMiBCel(text: string): string {
  const bare = `(${text}.matches("^[0-9]+$") ? int(${text}) : (double(int(double(${text}))) < double(${text}) ? int(double(${text})) + 1 : int(double(${text}))))`;
  const q = `quantity(${text})`;
  const fromBytes = `(${q}.isInteger() ? ${q}.asInteger() / 1048576 + (${q}.asInteger() % 1048576 > 0 ? 1 : 0) : -1)`;
  return `${text}.matches("^[0-9]+(\\\\.[0-9]*)?$|^\\\\.[0-9]+$") ? ${bare} : (isQuantity(${text}) && !${q}.isLessThan(quantity("0")) ? ${fromBytes} : -1)`;
}
