// The unit project runs its files without isolation (vitest.config.ts): the
// files of one worker share a process and its module cache. This setup file
// runs before each of them and puts back, when the file ends, what a file can
// change for the ones after it: environment variables (set directly or with
// vi.stubEnv), stubbed globals, spies on shared objects, fake timers.
// Module state is the other thing files share; ours is keyed by its inputs
// (WeakMaps on the objects a test builds, caches by cluster name), so a file
// never sees another's.
import { afterAll, vi } from 'vitest';

const environmentAtStart = { ...process.env };

afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
  for (const key of Object.keys(process.env)) {
    if (!(key in environmentAtStart)) delete process.env[key];
  }
  Object.assign(process.env, environmentAtStart);
});
