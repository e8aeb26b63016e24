// Each Lambda bundled as CDK's NodejsFunction bundles it (cdk/lib/functions/
// pipeline-function.ts), its minified size, its biggest inputs, and module
// initialisation time (import of the bundle in a fresh `node`, a cold-start
// proxy) as a ratio to an empty handler bundled the same way.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';
import { median } from './stats';

/**
 * Mirrors the NodejsFunction `bundling` block in cdk/lib/functions/pipeline-function.ts
 * (format esm, target node22, minify, mainFields module/main, no external
 * modules, the createRequire banner) plus what NodejsFunction always adds
 * (bundle, platform node, an .mjs outfile). Keep the two in step.
 */
export const CDK_BUNDLING: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  external: [],
  banner: { js: "import { createRequire as __gpuCreateRequire } from 'node:module'; const require = __gpuCreateRequire(import.meta.url);" },
};

export interface Contributor {
  /** A package name (node_modules) or "our code" for lambdas/. */
  readonly name: string;
  readonly bytes: number;
}

export interface BundleResult {
  readonly name: string;
  readonly bytes: number;
  readonly topContributors: readonly Contributor[];
  /** Median ms to import the bundle in a fresh node process. */
  readonly initMs: number;
  readonly initSamples: number;
  /** initMs / the empty handler's initMs. */
  readonly initRatio: number;
}

/** The package an input path belongs to: "@scope/name" or "name" under node_modules, else the project area. */
export function packageOf(inputPath: string): string {
  const parts = inputPath.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at >= 0) {
    const first = parts[at + 1] ?? '?';
    return first.startsWith('@') ? `${first}/${parts[at + 2] ?? '?'}` : first;
  }
  return parts[0] === 'lambdas' || parts[0] === 'bench' ? 'our code' : (parts[0] ?? '?');
}

/** Bytes each package contributes to one output, biggest first. */
export function contributors(metafile: Metafile, outputPath: string): Contributor[] {
  const output = metafile.outputs[outputPath];
  if (output === undefined) throw new Error(`metafile has no output ${outputPath}`);
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = packageOf(input);
    byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
  }
  return [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

const EMPTY_HANDLER = `export const handler = async () => ({ statusCode: 200, body: '' });\n`;

// Imports the bundle once and prints the milliseconds it took (module parse,
// link and top-level evaluation: what a cold start pays before the handler runs).
const MEASURE_INIT = `const started = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - started));
`;

/** Environment like the Lambda's, pointing every AWS endpoint at a closed loopback port: init must not call out. */
const INIT_ENV = {
  PATH: process.env.PATH ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  CLUSTER_NAME: 'bench-cluster',
  NODE_OPTIONS: '',
};

function initTimes(bundle: string, measureScript: string, runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = spawnSync(process.execPath, [measureScript, pathToFileURL(bundle).href], { encoding: 'utf8', env: INIT_ENV, timeout: 60_000 });
    const ms = Number(run.stdout);
    if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${bundle} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
    times.push(ms);
  }
  return times;
}

async function bundle(name: string, entry: string, outDir: string): Promise<{ outfile: string; metafile: Metafile }> {
  const outfile = join(outDir, name, 'index.mjs');
  const result = await build({ ...CDK_BUNDLING, entryPoints: [entry], outfile, metafile: true, absWorkingDir: PROJECT_ROOT, logLevel: 'error' });
  if (result.metafile === undefined) throw new Error(`esbuild returned no metafile for ${name}`);
  return { outfile, metafile: result.metafile };
}

export async function measureBundles(outDir: string, runs: number): Promise<BundleResult[]> {
  mkdirSync(outDir, { recursive: true });
  const emptyEntry = join(outDir, 'empty-handler.ts');
  writeFileSync(emptyEntry, EMPTY_HANDLER);
  const measureScript = join(outDir, 'measure-init.mjs');
  writeFileSync(measureScript, MEASURE_INIT);

  const entries: [string, string][] = [['empty handler', emptyEntry], ...Object.entries(LAMBDA_ENTRIES)];
  const built = [];
  for (const [name, entry] of entries) built.push({ name, ...(await bundle(name.replace(/\s+/g, '-'), entry, outDir)) });

  // Interleave the imports (empty, extender, labeler, reconciler, empty, …) so a
  // burst of load on the machine hits every bundle alike.
  const samples = new Map<string, number[]>(built.map((b) => [b.name, []]));
  for (let i = 0; i < runs; i++) for (const b of built) samples.get(b.name)?.push(...initTimes(b.outfile, measureScript, 1));
  const emptyMs = median(samples.get('empty handler') ?? []);
  return built.map((b) => {
    const initMs = median(samples.get(b.name) ?? []);
    return {
      name: b.name,
      bytes: statSync(b.outfile).size,
      topContributors: contributors(b.metafile, relative(PROJECT_ROOT, b.outfile)).slice(0, 5),
      initMs,
      initSamples: runs,
      initRatio: initMs / emptyMs,
    };
  });
}
