export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` until it returns a value other than undefined. `describe` says
 * what was awaited so a timeout reads like a test failure, not a mystery.
 */
export async function waitFor<T>(
  describe: string,
  probe: () => Promise<T | undefined> | T | undefined,
  {
    timeoutMs = 60_000,
    intervalMs = 250,
    failFast,
  }: {
    timeoutMs?: number;
    intervalMs?: number;
    /** Called before each attempt; what it throws ends the wait at once (e.g. the process died). */
    failFast?: () => void;
  } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    failFast?.();
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${describe}${cause}`);
    }
    await sleep(intervalMs);
  }
}
