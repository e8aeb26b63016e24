import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { LAMBDA_ESBUILD } from './esbuild-options';
import { PROJECT_ROOT } from './lambda-entries';
import type { PipelineFunctionName } from './lambda-entries';

/**
 * How every Lambda of ours is built and run: TypeScript bundled by esbuild
 * into one ESM file with its dependencies (esbuild-options.ts), nodejs22.x
 * on arm64 (cheaper per GB-second; nothing in it is architecture-specific).
 */
export const LAMBDA_BUILD: Pick<nodejs.NodejsFunctionProps, 'runtime' | 'architecture' | 'handler' | 'projectRoot' | 'depsLockFilePath' | 'bundling'> = {
  runtime: lambda.Runtime.NODEJS_22_X,
  architecture: lambda.Architecture.ARM_64,
  handler: 'handler',
  projectRoot: PROJECT_ROOT,
  depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
  bundling: {
    format: nodejs.OutputFormat.ESM,
    target: LAMBDA_ESBUILD.target,
    minify: LAMBDA_ESBUILD.minify,
    sourceMap: LAMBDA_ESBUILD.sourcemap,
    mainFields: [...LAMBDA_ESBUILD.mainFields],
    externalModules: [...LAMBDA_ESBUILD.external],
    banner: LAMBDA_ESBUILD.bannerJs,
    // esbuild's CLI default (info) prints a size summary that marks every
    // output over 1 MB with a warning sign (the labeler's and reconciler's
    // bundles: the AWS SDK and the Kubernetes client, bundled on purpose);
    // it is no warning of esbuild's, and at this level real ones still print.
    logLevel: nodejs.LogLevel.WARNING,
  },
};

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

/** Why nodejs22.x, for cdk-nag's AwsSolutions-L1 (latest runtime) finding. */
export const RUNTIME_ACKNOWLEDGMENT = {
  id: 'AwsSolutions-L1',
  reason: 'nodejs22.x on purpose: the code and its pinned dependencies (@kubernetes/client-node 1.4, AWS SDK v3) are tested on Node 22, what CI runs; moving to a newer runtime is a deliberate upgrade.',
};
