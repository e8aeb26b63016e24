import { realpathSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';
import { LAMBDA_ENTRIES, PROJECT_ROOT } from './lambda-entries';
import type { PipelineFunctionName } from './lambda-entries';

/**
 * A Lambda built as two bundles: its handler as one file (index.mjs), and
 * the module the handler loads with import() on first use, with everything
 * only that module needs, as a bundle of its own beside it (`<name>.mjs` and
 * chunks/). A cold start reads one file: each further ESM file costs the
 * import about 0.7 ms here, and a single esbuild build with splitting put
 * the modules both sides import into shared chunks the handler loads at
 * init (three files: 2.8 ms of a 17 ms init in a bare node, docs/benchmarks.md).
 *
 * The two bundles each hold a copy of the modules both import. That is safe
 * only for modules without state or classes whose identity matters across
 * the boundary; `shared` lists them, and the build fails on any other (the
 * handler's side passes what has identity, e.g. the scheduling library's
 * classes, through ClusterModel).
 */
export interface SplitLambda {
  /** The handler's source, bundled into index.mjs. */
  readonly entry: string;
  /** The specifier of the one import() the handler's side makes of the lazy module, e.g. `./cluster-access`. */
  readonly lazySpecifier: string;
  /** The lazy module's source, bundled into `<lazyName>.mjs`. */
  readonly lazyEntry: string;
  readonly lazyName: string;
  /** Path prefixes, relative to the repository, of the modules both bundles may hold a copy of. */
  readonly shared: readonly string[];
}

/** The extender: its cluster access (list/watch client, EKS connection, AWS SDK) loads on the first refresh. */
export const EXTENDER_SPLIT: SplitLambda = {
  entry: LAMBDA_ENTRIES.extender,
  lazySpecifier: './cluster-access',
  lazyEntry: join(PROJECT_ROOT, 'lambdas/extender/cluster-access.ts'),
  lazyName: 'cluster-access',
  shared: [
    // Functions and constants only. ConfigError crosses the boundary only as
    // a thrown error whose message is read.
    'lambdas/common/error-message.ts',
    'lambdas/scheduling/kube-json.ts',
    'lambdas/env/',
    'lambdas/extender/list-page-size.ts',
    // Keeps its state on globalThis.awslambda, made to be loaded more than once.
    'node_modules/@aws/lambda-invoke-store/',
  ],
};

/** The Lambdas built as two bundles, by name. */
export const SPLIT_LAMBDAS: Readonly<Partial<Record<PipelineFunctionName, SplitLambda>>> = { extender: EXTENDER_SPLIT };

export const SPLIT_CHUNK_NAMES = 'chunks/[name]-[hash]';

export interface SplitBuildResult {
  /** Both builds' metafiles merged (their outputs do not overlap). */
  readonly metafile: Metafile;
  /** index.mjs, relative to the source tree as in the metafile. */
  readonly main: string;
  /** `<lazyName>.mjs`, relative to the source tree as in the metafile. */
  readonly lazy: string;
}

/**
 * Builds `split` into `outdir` with `options` (the Lambda's esbuild options:
 * format, target, minify, banner…) and checks what the two bundles share.
 * `root` is the source tree (another checkout of the repository, for the
 * benchmarks' runs of an older commit); metafile paths are relative to it.
 */
export async function buildSplitLambda(split: SplitLambda, outdir: string, options: BuildOptions, root: string = PROJECT_ROOT): Promise<SplitBuildResult> {
  const common: BuildOptions = { ...options, bundle: true, platform: 'node', metafile: true, absWorkingDir: root, logLevel: 'error' };
  const inRoot = (path: string) => join(root, relative(PROJECT_ROOT, path));
  const lazyFile = `${split.lazyName}.mjs`;
  const handlerSide = await build({ ...common, entryPoints: [inRoot(split.entry)], outfile: join(outdir, 'index.mjs'), plugins: [lazyImportAsFile(split.lazySpecifier, inRoot(split.lazyEntry), `./${lazyFile}`)] });
  const lazySide = await build({
    ...common,
    entryPoints: { [split.lazyName]: inRoot(split.lazyEntry) },
    outdir,
    splitting: true,
    entryNames: '[name]',
    chunkNames: SPLIT_CHUNK_NAMES,
    outExtension: { '.js': '.mjs' },
  });
  const a = handlerSide.metafile;
  const b = lazySide.metafile;
  if (a === undefined || b === undefined) throw new Error('esbuild returned no metafile');
  // Metafile paths are relative to root; a checkout's node_modules is a link
  // to the repository's, so its inputs resolve there.
  const isShared = (input: string): boolean => {
    const path = resolve(root, input);
    return split.shared.some((prefix) => path.startsWith(join(root, prefix)) || path.startsWith(join(PROJECT_ROOT, prefix)));
  };
  const twice = Object.keys(a.inputs).filter((input) => input in b.inputs && !isShared(input));
  if (twice.length > 0) {
    throw new Error(
      `${relative(PROJECT_ROOT, split.entry)} and ${relative(PROJECT_ROOT, split.lazyEntry)} would each bundle a copy of ${twice.join(', ')}: ` +
        'pass what they share through the lazy module’s parameters, or, for a module without state or classes, add it to SplitLambda.shared',
    );
  }
  const metafile: Metafile = { inputs: { ...b.inputs, ...a.inputs }, outputs: { ...a.outputs, ...b.outputs } };
  return { metafile, main: relative(root, join(outdir, 'index.mjs')), lazy: relative(root, join(outdir, lazyFile)) };
}

/**
 * Leaves the handler's import() of the lazy module (`specifier` where it
 * resolves to `source`) as an import of the file the second build writes.
 */
function lazyImportAsFile(specifier: string, source: string, file: string): Plugin {
  const exact = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  // Compared as real paths: esbuild resolves symbolic links (a /tmp that is one, on macOS).
  const real = (path: string) => join(realpathSync(dirname(path)), basename(path));
  const target = real(source.replace(/\.[cm]?[jt]s$/, ''));
  return {
    name: 'lazy-module-as-file',
    setup(b) {
      b.onResolve({ filter: exact }, (args) => {
        // The same specifier from another directory is another module.
        if (real(resolve(args.resolveDir, args.path)) !== target) return undefined;
        // A static import would load it at init, which is what the split is for avoiding.
        if (args.kind !== 'dynamic-import') return { errors: [{ text: `${specifier} must be loaded with import(), not ${args.kind} (from ${args.importer})` }] };
        return { path: file, external: true };
      });
    },
  };
}
