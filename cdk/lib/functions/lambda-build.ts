import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { LAMBDA_ESBUILD } from './esbuild-options';
import { PROJECT_ROOT } from './lambda-entries';

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

/** Why nodejs22.x, for cdk-nag's AwsSolutions-L1 (latest runtime) finding. */
export const RUNTIME_ACKNOWLEDGMENT = {
  id: 'AwsSolutions-L1',
  reason: 'nodejs22.x on purpose: the code and its pinned dependencies (@kubernetes/client-node 1.4, AWS SDK v3) are tested on Node 22, what CI runs; moving to a newer runtime is a deliberate upgrade.',
};
