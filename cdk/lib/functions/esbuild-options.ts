import type { BuildOptions } from 'esbuild';

/**
 * The esbuild settings every Lambda of ours is bundled with: ESM for Node 22
 * (the nodejs22.x runtime), minified, with source maps, ESM entry points of
 * dependencies first, nothing external (the AWS SDK too, at the versions the
 * lockfile pins, rather than whatever the runtime happens to ship). The one
 * place they are written: lambda-build.ts hands them to NodejsFunction, and
 * bench/perf/bundles.ts and the tests that build a bundle pass them to esbuild.
 */
export const LAMBDA_ESBUILD = {
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  external: [],
  // CommonJS dependencies inside an ESM bundle still call require().
  bannerJs: "import { createRequire as __gpuCreateRequire } from 'node:module'; const require = __gpuCreateRequire(import.meta.url);",
} as const;

/** LAMBDA_ESBUILD as esbuild's build options, plus what NodejsFunction always adds (bundle, platform node). */
export function lambdaEsbuildOptions(): BuildOptions {
  const { format, target, minify, sourcemap, mainFields, external, bannerJs } = LAMBDA_ESBUILD;
  return { bundle: true, platform: 'node', format, target, minify, sourcemap, mainFields: [...mainFields], external: [...external], banner: { js: bannerJs } };
}
