/**
 * The command line Lambda's managed Node.js runtime starts `node` with, before
 * its own entry file: `/var/runtime/bootstrap` of the nodejs14.x and
 * nodejs18.x images (public.ecr.aws/lambda/nodejs) passes these flags, the
 * heap sized from AWS_LAMBDA_FUNCTION_MEMORY_SIZE (a tenth of it for the young
 * generation, in two semispaces; the rest for the old generation). We could
 * not read the nodejs22.x image from here and take it to do the same.
 *
 * It matters to the benchmarks in two ways. Flags on the command line are
 * parsed after NODE_OPTIONS, so they win over a NODE_OPTIONS heap setting of
 * the same name (`node --max-semi-space-size=88` with NODE_OPTIONS
 * `--max-semi-space-size=64` runs with 88). And any V8 flag makes Node
 * compile its own internal modules again instead of taking them from the
 * code cache built into the binary, which V8 rejects when its flags differ:
 * every function on the runtime pays that, an empty one too (about 6 ms of an
 * empty handler's first import here, docs/benchmarks.md).
 */
export function lambdaRuntimeNodeArgs(memorySizeMiB: number): string[] {
  if (!Number.isInteger(memorySizeMiB) || memorySizeMiB < 128 || memorySizeMiB > 10240) {
    throw new Error(`Lambda memory must be an integer 128..10240 MiB, got ${memorySizeMiB}`);
  }
  const newSpace = Math.floor(memorySizeMiB / 10);
  return ['--expose-gc', '--max-http-header-size', '81920', `--max-semi-space-size=${Math.floor(newSpace / 2)}`, `--max-old-space-size=${memorySizeMiB - newSpace}`];
}
