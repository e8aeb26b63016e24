import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { PROJECT_ROOT } from './lambda-entries';

/**
 * How every Lambda of ours is built and run: TypeScript bundled by esbuild
 * into one ESM file with its dependencies (the AWS SDK too, at the versions
 * the lockfile pins, rather than whatever the runtime happens to ship),
 * nodejs22.x on arm64 (cheaper per GB-second; nothing in it is
 * architecture-specific).
 */
export const LAMBDA_BUILD: Pick<nodejs.NodejsFunctionProps, 'runtime' | 'architecture' | 'handler' | 'projectRoot' | 'depsLockFilePath' | 'bundling'> = {
  runtime: lambda.Runtime.NODEJS_22_X,
  architecture: lambda.Architecture.ARM_64,
  handler: 'handler',
  projectRoot: PROJECT_ROOT,
  depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
  bundling: {
    format: nodejs.OutputFormat.ESM,
    target: 'node22',
    minify: true,
    sourceMap: true,
    mainFields: ['module', 'main'],
    externalModules: [],
    // CommonJS dependencies inside an ESM bundle still call require().
    banner: "import { createRequire as __gpuCreateRequire } from 'node:module'; const require = __gpuCreateRequire(import.meta.url);",
  },
};

/** Why nodejs22.x, for cdk-nag's AwsSolutions-L1 (latest runtime) finding. */
export const RUNTIME_ACKNOWLEDGMENT = {
  id: 'AwsSolutions-L1',
  reason: 'nodejs22.x on purpose: the code and its pinned dependencies (@kubernetes/client-node 1.4, AWS SDK v3) are tested on Node 20 and 22; moving to a newer runtime is a deliberate upgrade.',
};
