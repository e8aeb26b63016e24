// local/start/pipeline.ts's import path for building Kubernetes and etcd,
// which lives in build/kube-binaries.ts. Run directly, it builds everything,
// as `npx tsx local/builds/build-all.ts` does.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAll } from './builds/build-all';

export * from './builds/kube-binaries';

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildAll().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
