// Each Lambda bundled as CDK's NodejsFunction bundles it (cdk/lib/functions/
// pipeline-function.ts), its minified size, its biggest inputs, and module
// initialisation time (import of the bundle in a fresh `node`, a cold-start
// proxy) as a ratio to an empty handler bundled the same way, both started as
// Lambda's runtime starts node and, apart, in a bare node.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import { APP_CONFIG_DEFAULTS } from '../../cdk/app-config/app-config-defaults';
import { lambdaEsbuildOptions } from '../../cdk/lib/functions/esbuild-options';
import { functionNodeOptions } from '../../cdk/lib/functions/lambda-build';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';
import type { PipelineFunctionName } from '../../cdk/lib/functions/lambda-entries';
import { buildSplitLambda, SPLIT_LAMBDAS } from '../../cdk/lib/functions/split-build';
import type { SplitLambda } from '../../cdk/lib/functions/split-build';
import { lambdaRuntimeNodeArgs } from './lambda-runtime-args';
import { median } from './stats';

/**
 * The esbuild options of every Lambda (cdk/lib/functions/esbuild-options.ts,
 * what NodejsFunction is given, plus the bundle and platform flags it always
 * adds). A Lambda in SPLIT_LAMBDAS is built by the same buildSplitLambda its
 * afterBundling hook runs (cdk/lib/functions/split-build.ts).
 */
export const CDK_BUNDLING: BuildOptions = lambdaEsbuildOptions();

export interface Contributor {
  /** A package name (node_modules) or "our code" for lambdas/. */
  readonly name: string;
  readonly bytes: number;
}

export interface BundleResult {
  readonly name: string;
  /** What a cold start reads: index.mjs and the chunks it imports statically (all of a single-file bundle). */
  readonly bytes: number;
  /** Every output file (.mjs), the chunks loaded on first use included. */
  readonly totalBytes: number;
  /** Of `bytes`. */
  readonly topContributors: readonly Contributor[];
  /** Median ms to import the bundle in a fresh node process started as Lambda's runtime starts it (InitMode `lambda`). */
  readonly initMs: number;
  readonly initSamples: number;
  /** initMs / the empty handler's initMs, both as on Lambda. */
  readonly initRatio: number;
  /** The same import in a bare node, no flags for any bundle (InitMode `plain`). */
  readonly plainInitMs: number;
  /** plainInitMs / the empty handler's plainInitMs. */
  readonly plainInitRatio: number;
  /** Split Lambdas: median ms to then import the lazy bundle, paid once by the first request that needs it (as on Lambda). */
  readonly lazyMs?: number;
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

/** Bytes each package contributes to the outputs, biggest first. */
export function contributors(metafile: Metafile, outputPaths: string | readonly string[]): Contributor[] {
  const byPackage = new Map<string, number>();
  for (const outputPath of typeof outputPaths === 'string' ? [outputPaths] : outputPaths) {
    const output = metafile.outputs[outputPath];
    if (output === undefined) throw new Error(`metafile has no output ${outputPath}`);
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/**
 * The outputs an import of `entry` loads before its code runs: the entry and,
 * transitively, the chunks it imports statically. Chunks reached only through
 * import() are left out: they load when the code first asks for them.
 */
export function staticClosure(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    const output = metafile.outputs[path];
    if (output === undefined) throw new Error(`metafile has no output ${path}`);
    seen.add(path);
    for (const imported of output.imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(entry);
  return [...seen];
}

function outputBytes(metafile: Metafile, paths: readonly string[]): number {
  return paths.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
}

const EMPTY_HANDLER = `export const handler = async () => ({ statusCode: 200, body: '' });\n`;

// Imports the bundle once and prints the milliseconds it took (module parse,
// link and top-level evaluation: what a cold start pays before the handler runs).
const MEASURE_INIT = `const started = performance.now();
await import(process.argv[2]);
process.stdout.write(String(performance.now() - started));
`;

// Imports the bundle, then prints the milliseconds to import the files named
// after it: what the first request that needs them pays on a split Lambda. A
// script of its own: anything after the timed import() in MEASURE_INIT moves
// its figure (an empty handler measured 1.7 instead of 4.4 ms).
const MEASURE_LAZY = `await import(process.argv[2]);
const started = performance.now();
for (const url of process.argv.slice(3)) await import(url);
process.stdout.write(String(performance.now() - started));
`;

/**
 * How a bundle's first import is timed:
 * - `lambda`: as Lambda's Node.js runtime starts it, with the runtime's
 *   command-line flags at the function's default memory
 *   (lambda-runtime-args.ts) and the NODE_OPTIONS the stack gives it; the
 *   empty handler gets the runtime's flags at the extender's memory, as an
 *   empty function deployed beside it would, and no NODE_OPTIONS.
 * - `plain`: a bare `node` with no flags and no NODE_OPTIONS for any bundle:
 *   what the bundle's own code costs, with nothing the runtime adds.
 */
export type InitMode = 'lambda' | 'plain';

function memoryOf(name: string): number {
  const fn: PipelineFunctionName = name in LAMBDA_ENTRIES ? (name as PipelineFunctionName) : 'extender';
  return APP_CONFIG_DEFAULTS[fn].memorySizeMiB;
}

/** Environment like the Lambda's, pointing every AWS endpoint at a closed loopback port (init must not call out). */
function initEnv(name: string, mode: InitMode): Record<string, string> {
  const deployed = mode === 'lambda' && name in LAMBDA_ENTRIES ? functionNodeOptions(name as PipelineFunctionName, memoryOf(name)) : '';
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    AWS_LAMBDA_FUNCTION_NAME: 'bench',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryOf(name)),
    CLUSTER_NAME: 'bench-cluster',
    NODE_OPTIONS: deployed,
  };
}

/** Milliseconds one fresh node process prints after running `script` on the files. */
function timedImport(name: string, mode: InitMode, script: string, files: readonly string[]): number {
  const flags = mode === 'lambda' ? lambdaRuntimeNodeArgs(memoryOf(name)) : [];
  const run = spawnSync(process.execPath, [...flags, script, ...files.map((file) => pathToFileURL(file).href)], { encoding: 'utf8', env: initEnv(name, mode), timeout: 60_000 });
  const ms = Number(run.stdout);
  if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${files[0] ?? '?'} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return ms;
}

interface Built {
  readonly outfile: string;
  /** What its import() calls load, absolute paths: the lazy bundle of a split Lambda. */
  readonly lazy: readonly string[];
  readonly bytes: number;
  readonly totalBytes: number;
  readonly topContributors: readonly Contributor[];
}

async function bundle(name: string, entry: string, outDir: string, split: SplitLambda | undefined): Promise<Built> {
  const dir = join(outDir, name);
  rmSync(dir, { recursive: true, force: true });
  const outfile = join(dir, 'index.mjs');
  let metafile: Metafile | undefined;
  let lazy: string[];
  if (split !== undefined) {
    const built = await buildSplitLambda(split, dir, CDK_BUNDLING);
    metafile = built.metafile;
    lazy = [join(PROJECT_ROOT, built.lazy)];
  } else {
    ({ metafile } = await build({ ...CDK_BUNDLING, entryPoints: [entry], outfile, metafile: true, absWorkingDir: PROJECT_ROOT, logLevel: 'error' }));
    if (metafile === undefined) throw new Error(`esbuild returned no metafile for ${name}`);
    // Without splitting esbuild inlines what an import() loads: nothing is left for first use.
    lazy = [];
  }
  const main = relative(PROJECT_ROOT, outfile);
  const initSet = staticClosure(metafile, main);
  const code = Object.keys(metafile.outputs).filter((path) => path.endsWith('.mjs'));
  return {
    outfile,
    lazy,
    bytes: outputBytes(metafile, initSet),
    totalBytes: outputBytes(metafile, code),
    topContributors: contributors(metafile, initSet).slice(0, 5),
  };
}

export async function measureBundles(outDir: string, runs: number): Promise<BundleResult[]> {
  mkdirSync(outDir, { recursive: true });
  const emptyEntry = join(outDir, 'empty-handler.ts');
  writeFileSync(emptyEntry, EMPTY_HANDLER);
  const measureScript = join(outDir, 'measure-init.mjs');
  writeFileSync(measureScript, MEASURE_INIT);
  const lazyScript = join(outDir, 'measure-lazy.mjs');
  writeFileSync(lazyScript, MEASURE_LAZY);

  const entries: [string, string][] = [['empty handler', emptyEntry], ...Object.entries(LAMBDA_ENTRIES)];
  const built: (Built & { name: string })[] = [];
  for (const [name, entry] of entries) {
    const split = name in SPLIT_LAMBDAS ? SPLIT_LAMBDAS[name as PipelineFunctionName] : undefined;
    built.push({ name, ...(await bundle(name.replace(/\s+/g, '-'), entry, outDir, split)) });
  }

  // Interleave the imports (empty, extender, labeler, reconciler, empty, …;
  // each as on Lambda, then plain) so a burst of load on the machine hits
  // every bundle and both modes alike.
  const key = (name: string, mode: InitMode | 'lazy') => `${mode} ${name}`;
  const samples = new Map<string, number[]>();
  const push = (k: string, ms: number) => (samples.get(k) ?? samples.set(k, []).get(k))?.push(ms);
  for (let i = 0; i < runs; i++) {
    for (const b of built) {
      for (const mode of ['lambda', 'plain'] as const) push(key(b.name, mode), timedImport(b.name, mode, measureScript, [b.outfile]));
      if (b.lazy.length > 0) push(key(b.name, 'lazy'), timedImport(b.name, 'lambda', lazyScript, [b.outfile, ...b.lazy]));
    }
  }
  const medianOf = (k: string) => median(samples.get(k) ?? []);
  const emptyMs = medianOf(key('empty handler', 'lambda'));
  const emptyPlainMs = medianOf(key('empty handler', 'plain'));
  return built.map((b) => {
    const initMs = medianOf(key(b.name, 'lambda'));
    const plainInitMs = medianOf(key(b.name, 'plain'));
    return {
      name: b.name,
      bytes: b.bytes,
      totalBytes: b.totalBytes,
      topContributors: b.topContributors,
      initMs,
      initSamples: runs,
      initRatio: initMs / emptyMs,
      plainInitMs,
      plainInitRatio: plainInitMs / emptyPlainMs,
      ...(b.lazy.length > 0 ? { lazyMs: medianOf(key(b.name, 'lazy')) } : {}),
    };
  });
}
