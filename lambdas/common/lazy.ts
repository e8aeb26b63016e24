/**
 * An initialisation run on first use and shared by the warm container's later
 * invocations. A failure is not kept: the next call tries again, so a fixed
 * environment or a cluster that became reachable takes effect without a cold
 * start, and a cold start never crashes on it.
 */
export function lazy<T>(init: () => T | Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= (async () => init())().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
