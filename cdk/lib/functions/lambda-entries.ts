import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The repository root: esbuild's project root and where package-lock.json lives. */
export const PROJECT_ROOT = repoRoot;

/** Entry files of the three Lambdas; each exports `handler`. The one place these paths live. */
export const LAMBDA_ENTRIES = {
  extender: fileURLToPath(new URL('lambdas/extender/handler.ts', `file://${repoRoot}`)),
  labeler: fileURLToPath(new URL('lambdas/labeler/handler.ts', `file://${repoRoot}`)),
  reconciler: fileURLToPath(new URL('lambdas/reconciler/handler.ts', `file://${repoRoot}`)),
} as const;

export type PipelineFunctionName = keyof typeof LAMBDA_ENTRIES;

/** Entry files of the Lambdas that run only during a deployment (custom-resource handlers). */
export const DEPLOY_TIME_LAMBDA_ENTRIES = {
  gpuInstanceTypes: fileURLToPath(new URL('lambdas/gpu-instance-types/handler.ts', `file://${repoRoot}`)),
  certificates: fileURLToPath(new URL('lambdas/certificates/handler.ts', `file://${repoRoot}`)),
} as const;
