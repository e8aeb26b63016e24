// `npm run cost`: the monthly cost of what the stack adds, for a configuration
// at a cluster's size (cdk/cost/stack-cost.ts).
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliValues } from '../../cli/command-line';
import { AppConfigError } from '../app-config/app-config-error';
import { PRICES_RECORDED_ON, PRICES_REGION } from '../cost/aws-prices';
import { costMarkdownTable, costText, DEFAULT_GPU_PODS_SCHEDULED_PER_DAY, describeSize, stackCost, type ClusterSize } from '../cost/stack-cost';
import { loadToolConfig } from './tool-config';

export const COST_CLI = defineCli({
  usage: 'npm run cost -- [--config <file>] --gpu-nodes <n> --pods <n> [--scheduled-per-day <n>] [--markdown]',
  summary: [
    'The monthly cost of what the stack adds to the AWS bill, for a configuration and a cluster size:',
    'Lambdas, the internal ALB, CloudWatch metrics, reads, alarms, dashboard and logs, X-Ray, Container',
    `Insights per node, and for a new cluster its control plane, NAT and endpoints. AWS list prices in ${PRICES_REGION}`,
    `recorded ${PRICES_RECORDED_ON} (cdk/cost/aws-prices.ts); the assumptions are in cdk/cost/stack-cost.ts.`,
    'Exit 0 printed, 1 bad configuration, 2 bad usage.',
  ].join('\n'),
  options: {
    config: { type: 'string', value: 'file', description: "the app's config file (JSON or YAML); default: cdk.json's context, as cdk synth reads it" },
    'gpu-nodes': { type: 'string', value: 'n', description: 'GPU nodes running, on average over the month (required)' },
    pods: { type: 'string', value: 'n', description: 'pods opted in to deletion costs; the reconciler reads 3 metrics of each a run (required)' },
    'scheduled-per-day': { type: 'string', value: 'n', description: `GPU pods the gpu-scheduler places a day (default ${DEFAULT_GPU_PODS_SCHEDULED_PER_DAY})` },
    markdown: { type: 'boolean', description: 'print a Markdown table (as docs/deploy.md shows it) instead of columns' },
  },
  examples: [
    'npm run cost -- --gpu-nodes 4 --pods 20',
    'npm run cost -- --config my-cluster.yaml --gpu-nodes 50 --pods 100',
  ],
});

export interface CostOptions extends ClusterSize {
  readonly config: string | undefined;
  readonly markdown: boolean;
}

function count(text: string | undefined, flag: string, fallback?: number): number {
  if (text === undefined) {
    if (fallback === undefined) throw new UsageError(`--${flag} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(text) || Number(text) > 1_000_000) throw new UsageError(`--${flag} must be a whole number from 0 to 1000000, got ${JSON.stringify(text)}`);
  return Number(text);
}

export function readCostOptions(values: CliValues<typeof COST_CLI.options>): CostOptions {
  return {
    config: values.config,
    gpuNodes: count(values['gpu-nodes'], 'gpu-nodes'),
    optedInPods: count(values.pods, 'pods'),
    gpuPodsScheduledPerDay: count(values['scheduled-per-day'], 'scheduled-per-day', DEFAULT_GPU_PODS_SCHEDULED_PER_DAY),
    markdown: values.markdown === true,
  };
}

/** What --markdown prints: the size and prices it is at, then the table. */
export function costMarkdown(options: CostOptions, cwd: string = process.cwd()): string {
  const config = loadToolConfig(options.config, cwd);
  const what = config.cluster.mode === 'new' ? 'a new cluster' : 'an existing cluster';
  const source = options.config === undefined ? 'the default configuration' : `\`${options.config}\``;
  return [
    `USD a month for ${what} (${source}), ${describeSize(options)}; AWS list prices in ${PRICES_REGION} recorded ${PRICES_RECORDED_ON}:`,
    '',
    costMarkdownTable(stackCost(config, options)),
  ].join('\n');
}

export function main(argv: readonly string[]): number {
  const options = readCommandLine(COST_CLI, argv, readCostOptions);
  try {
    if (options.markdown) {
      process.stdout.write(`${costMarkdown(options)}\n`);
      return 0;
    }
    const config = loadToolConfig(options.config);
    process.stdout.write(`USD a month, ${describeSize(options)}; AWS list prices in ${PRICES_REGION} recorded ${PRICES_RECORDED_ON}\n\n${costText(stackCost(config, options))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof AppConfigError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
