const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses Go-style durations (`250ms`, `30s`, `5m`, `1h30m`, `1.5h`) into
 * milliseconds; undefined when the text is not one. Kept to what people
 * type in environment variables and pod annotations (a job's expected
 * runtime): no negative values, no microseconds. In the library because the
 * scheduling plugins read it; the environment readers (lambdas/env) use it too.
 */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const match of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    const amount = Number(match[1]);
    const unit = UNIT_MS[match[2] ?? ''];
    if (unit === undefined || !Number.isFinite(amount)) return undefined;
    total += amount * unit;
  }
  const rounded = Math.round(total);
  return Number.isSafeInteger(rounded) ? rounded : undefined;
}
