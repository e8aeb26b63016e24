// The extender's afterBundling hook (lambda-build.ts, splitBundling):
// `tsx split-build-main.ts <outputDir> <function name>` builds the function
// as SPLIT_LAMBDAS says into the asset directory, over the single file
// NodejsFunction wrote.
import { lambdaEsbuildOptions } from './esbuild-options';
import type { PipelineFunctionName } from './lambda-entries';
import { buildSplitLambda, SPLIT_LAMBDAS } from './split-build';

const [outdir, name] = process.argv.slice(2);
const split = name === undefined ? undefined : SPLIT_LAMBDAS[name as PipelineFunctionName];
if (outdir === undefined || split === undefined) {
  process.stderr.write(`usage: split-build-main.ts <output dir> <${Object.keys(SPLIT_LAMBDAS).join('|')}>\n`);
  process.exit(2);
}
await buildSplitLambda(split, outdir, lambdaEsbuildOptions());
