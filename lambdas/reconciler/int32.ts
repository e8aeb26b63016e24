/** Kubernetes validates pod-deletion-cost as a 32-bit signed integer. */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** Clamps any number (NaN included, which becomes `fallback`) to an integer inside int32. */
export function toInt32(value: number, fallback = 0): number {
  if (Number.isNaN(value)) return fallback;
  const truncated = Math.trunc(value);
  return Math.min(INT32_MAX, Math.max(INT32_MIN, truncated));
}

/** Parses a canonical decimal integer inside int32; anything else is `undefined`. */
export function parseInt32(text: string | undefined): number | undefined {
  if (text === undefined || !/^-?(0|[1-9][0-9]{0,9})$/.test(text)) return undefined;
  const value = Number(text);
  return value >= INT32_MIN && value <= INT32_MAX ? value : undefined;
}
