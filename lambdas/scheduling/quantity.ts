/**
 * Kubernetes resource quantities ("500m", "40Gi", "1.5", "2e3"), parsed without
 * @kubernetes/client-node: its quantityToScalar throws, mixes number and bigint
 * and pulls the whole client into the pure library's import graph.
 */

const BINARY_SUFFIX: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const DECIMAL_SUFFIX: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/**
 * Quantities read before: a cluster's pods repeat a handful of texts ("100m",
 * "128Mi", "1"), and a listing parses each of their requests. Bounded: it
 * starts over when full, so odd texts cannot grow it.
 */
const KNOWN = new Map<string, number | undefined>();
const KNOWN_MAX = 1024;
/** Longer texts are parsed every time (a canonical quantity is a few characters). */
const KNOWN_MAX_LENGTH = 32;

/** The value of a quantity as a number, or undefined when the text is not a quantity. */
export function parseQuantity(text: string): number | undefined {
  if (text.length > KNOWN_MAX_LENGTH) return parseQuantityText(text);
  const known = KNOWN.get(text);
  if (known !== undefined || KNOWN.has(text)) return known;
  if (KNOWN.size >= KNOWN_MAX) KNOWN.clear();
  const value = parseQuantityText(text);
  KNOWN.set(text, value);
  return value;
}

function parseQuantityText(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, sign = '', digits = '', exponent, suffix = ''] = match;
  let value = Number(digits);
  if (exponent !== undefined) value *= 10 ** Number(exponent.slice(1));
  else value *= BINARY_SUFFIX[suffix] ?? DECIMAL_SUFFIX[suffix] ?? Number.NaN;
  if (!Number.isFinite(value)) return undefined;
  return sign === '-' ? -value : value;
}

/** CPU in millicores, rounded up like the API server does ("0.1" → 100, "1" → 1000). */
export function parseCpuMilli(text: string): number | undefined {
  const value = parseQuantity(text);
  return value === undefined ? undefined : Math.ceil(roundFloat(value * 1000));
}

/** Memory (or any byte count) in bytes, rounded up. */
export function parseBytes(text: string): number | undefined {
  const value = parseQuantity(text);
  return value === undefined ? undefined : Math.ceil(roundFloat(value));
}

/** A count such as pods or nvidia.com/gpu: must be a whole number. */
export function parseCount(text: string): number | undefined {
  const value = parseQuantity(text);
  return value !== undefined && Number.isSafeInteger(roundFloat(value)) ? roundFloat(value) : undefined;
}

const MIB = 2 ** 20;

/**
 * GPU memory as written in our labels and annotations: a bare number is MiB
 * ("40960"); a quantity with a unit is bytes ("40Gi", "42G") and is converted
 * to MiB, rounded up.
 */
export function parseMiB(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(trimmed)) {
    const value = Number(trimmed);
    return Number.isFinite(value) ? Math.ceil(value) : undefined;
  }
  const bytes = parseQuantity(trimmed);
  return bytes === undefined ? undefined : Math.ceil(roundFloat(bytes / MIB));
}

/** Removes binary floating-point noise (0.1 * 1000 = 100.00000000000001) before rounding up. */
function roundFloat(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
