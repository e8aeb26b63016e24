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
import { functionNodeOptions } from '../../cdk/lib/functions/node-options';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from '../../cdk/lib/functions/lambda-entries';
import type { PipelineFunctionName } from '../../cdk/lib/functions/lambda-entries';
import { lambdaRuntimeNodeArgs } from './lambda-runtime-args';
import { median } from './stats';

/**
 * The esbuild options of every Lambda (cdk/lib/functions/esbuild-options.ts,
 * what NodejsFunction is given, plus the bundle and platform flags it always
 * adds): each Lambda is one file.
 */
export const CDK_BUNDLING: BuildOptions = lambdaEsbuildOptions();

export interface Contributor {
  /** A package name (node_modules) or "our code" for lambdas/. */
  readonly name: string;
  readonly bytes: number;
}

export interface BundleResult {
  readonly name: string;
  /** index.mjs, what a cold start reads. */
  readonly bytes: number;
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

/** Bytes each package contributes to the output, biggest first. */
export function contributors(metafile: Metafile, outputPath: string): Contributor[] {
  const byPackage = new Map<string, number>();
  const output = metafile.outputs[outputPath];
  if (output === undefined) throw new Error(`metafile has no output ${outputPath}`);
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

/** Milliseconds one fresh node process prints after running `script` on the file. */
function timedImport(name: string, mode: InitMode, script: string, file: string): number {
  const flags = mode === 'lambda' ? lambdaRuntimeNodeArgs(memoryOf(name)) : [];
  const run = spawnSync(process.execPath, [...flags, script, pathToFileURL(file).href], { encoding: 'utf8', env: initEnv(name, mode), timeout: 60_000 });
  const ms = Number(run.stdout);
  if (run.status !== 0 || !Number.isFinite(ms)) throw new Error(`importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return ms;
}

interface Built {
  readonly outfile: string;
  readonly bytes: number;
  readonly topContributors: readonly Contributor[];
}

async function bundle(name: string, entry: string, outDir: string): Promise<Built> {
  const dir = join(outDir, name);
  rmSync(dir, { recursive: true, force: true });
  const outfile = join(dir, 'index.mjs');
  const { metafile } = await build({ ...CDK_BUNDLING, entryPoints: [entry], outfile, metafile: true, absWorkingDir: PROJECT_ROOT, logLevel: 'error' });
  if (metafile === undefined) throw new Error(`esbuild returned no metafile for ${name}`);
  // Without splitting esbuild inlines what an import() loads: the one file is all a cold start reads.
  const main = relative(PROJECT_ROOT, outfile);
  return { outfile, bytes: metafile.outputs[main]?.bytes ?? 0, topContributors: contributors(metafile, main).slice(0, 5) };
}

export async function measureBundles(outDir: string, runs: number): Promise<BundleResult[]> {
  mkdirSync(outDir, { recursive: true });
  const emptyEntry = join(outDir, 'empty-handler.ts');
  writeFileSync(emptyEntry, EMPTY_HANDLER);
  const measureScript = join(outDir, 'measure-init.mjs');
  writeFileSync(measureScript, MEASURE_INIT);

  const entries: [string, string][] = [['empty handler', emptyEntry], ...Object.entries(LAMBDA_ENTRIES)];
  const built: (Built & { name: string })[] = [];
  for (const [name, entry] of entries) built.push({ name, ...(await bundle(name.replace(/\s+/g, '-'), entry, outDir)) });

  // Interleave the imports (empty, extender, labeler, reconciler, empty, …;
  // each as on Lambda, then plain) so a burst of load on the machine hits
  // every bundle and both modes alike.
  const key = (name: string, mode: InitMode) => `${mode} ${name}`;
  const samples = new Map<string, number[]>();
  const push = (k: string, ms: number) => (samples.get(k) ?? samples.set(k, []).get(k))?.push(ms);
  for (let i = 0; i < runs; i++) {
    for (const b of built) {
      for (const mode of ['lambda', 'plain'] as const) push(key(b.name, mode), timedImport(b.name, mode, measureScript, b.outfile));
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
      topContributors: b.topContributors,
      initMs,
      initSamples: runs,
      initRatio: initMs / emptyMs,
      plainInitMs,
      plainInitRatio: plainInitMs / emptyPlainMs,
    };
  });
}
