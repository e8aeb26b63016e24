// What a kubelet does for a Secret volume, done from the API: a process that
// reads its certificates from files (Kueue's webhook server, which waits for
// them) gets the Secret's keys written into a directory, and rewritten when
// the Secret changes (its certificate manager rotates them there).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoreV1Api } from '@kubernetes/client-node';

export interface SecretMount {
  /** The last read that failed, if the latest did (for log tails). */
  readonly lastError: unknown;
  stop(): void;
}

/** Polls the Secret every `intervalMs` and writes each of `keys` it holds to `dir/<key>` (0600) when its content changes. */
export function mountSecret(core: CoreV1Api, ref: { namespace: string; name: string }, dir: string, keys: readonly string[], intervalMs = 500): SecretMount {
  const written = new Map<string, string>();
  let lastError: unknown;
  let stopped = false;
  const sync = async (): Promise<void> => {
    const secret = await core.readNamespacedSecret(ref);
    for (const key of keys) {
      const value = secret.data?.[key];
      if (value === undefined || written.get(key) === value) continue;
      writeFileSync(join(dir, key), Buffer.from(value, 'base64'), { mode: 0o600 });
      written.set(key, value);
    }
  };
  const loop = async (): Promise<void> => {
    while (!stopped) {
      try {
        await sync();
        lastError = undefined;
      } catch (error) {
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs).unref());
    }
  };
  void loop();
  return {
    get lastError() {
      return lastError;
    },
    stop: () => {
      stopped = true;
    },
  };
}
