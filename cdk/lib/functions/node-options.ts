import type { PipelineFunctionName } from './lambda-entries';

/**
 * NODE_OPTIONS of each Lambda, the one place they are set (the stack and
 * bench/perf, so the benchmarks run what is deployed).
 *
 * - The labeler and the reconciler run with `--enable-source-maps`, so their
 *   stack traces name our source lines.
 * - The extender does not: Node then reads and parses the source map of every
 *   file it loads, which measured +5 to +12 ms on an 18-27 ms init, and a
 *   cold start counts against kube-scheduler's httpTimeout. Its error log
 *   lines carry the messages, and the asset still holds the `.map` files to
 *   map a stack offline.
 * - The extender's young generation is raised with the memory it has: a cold
 *   instance listing a big cluster allocates its objects page after page,
 *   and with V8's default 16 MiB semispaces it spends a good part of that in
 *   scavenges (docs/extender.md, "The first listing of a cold instance").
 *   Below 1,024 MB the default stays, to leave the memory to the cache.
 *   This is a floor, not the setting: Lambda's Node.js runtime starts node
 *   with heap flags of its own on the command line, which win over
 *   NODE_OPTIONS (bench/perf/lambda-runtime-args.ts), and at these sizes
 *   they give more (88 MiB semispaces at 1,769 MB). It matters only on a
 *   runtime that passes none, and then costs about 6-9 ms of init, which
 *   the runtime's own V8 flags already cost where it passes them.
 */
export function functionNodeOptions(name: PipelineFunctionName, memorySizeMiB: number): string {
  if (name !== 'extender') return '--enable-source-maps';
  if (memorySizeMiB >= 1536) return '--max-semi-space-size=64';
  if (memorySizeMiB >= 1024) return '--max-semi-space-size=32';
  return '';
}
