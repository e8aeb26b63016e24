// Command-line options of `npm start`.
import { resolve } from 'node:path';
import { defineCli, parseCommandLine, UsageError, type CliValues } from '../../cli/command-line';

export { UsageError };

export interface StartOptions {
  demo: boolean;
  exitAfterDemo: boolean;
  /** Absolute path, or undefined for the built-in demo. */
  scenarioFile: string | undefined;
  /** Absolute path of the CDK app's config file, or undefined for its defaults. */
  configFile: string | undefined;
}

export const START_CLI = defineCli({
  usage: 'npm start -- [options]',
  summary: [
    'Runs the whole pipeline locally (etcd, kube-apiserver, kube-controller-manager,',
    'kube-schedulers, moto, and the extender, labeler and reconciler Lambdas) and a',
    'demo on it, then keeps running until Ctrl-C, which stops everything and removes',
    'its temporary files. Prints progress lines, the demo\'s tables and a summary of',
    'checks, then how to look around (kubeconfig path, moto endpoint, logs).',
    'The first run builds Kubernetes and etcd with Go (about 10 minutes on an idle',
    '2-core machine, longer under load; cached for later runs).',
  ].join('\n'),
  options: {
    'no-demo': { type: 'boolean', description: 'start the pipeline only (no nodes, no workload)' },
    scenario: { type: 'string', value: 'file', description: 'run this scenario (JSON or YAML) instead of the built-in demo\n(local/start/demo-scenario.yaml; docs/local-pipeline.md describes the keys)' },
    config: { type: 'string', value: 'file', description: 'the CDK app\'s config file (JSON or YAML), e.g. cdk/app-config/example-existing-cluster.yaml' },
    'exit-after-demo': { type: 'boolean', description: 'run the demo, print the summary and exit: 0 if every expected outcome held, 1 otherwise' },
  },
  examples: [
    'npm start                                # pipeline + demo, until Ctrl-C',
    'npm start -- --exit-after-demo           # headless: demo, summary, exit code',
    'npm start -- --no-demo --config my.yaml  # your CDK config, no demo',
  ],
});

/** Parses argv (without node and the script); relative paths resolve against `cwd` (npm's INIT_CWD). */
export function parseStartOptions(argv: readonly string[], cwd: string): StartOptions {
  return startOptionsFrom(parseCommandLine(START_CLI, argv), cwd);
}

/** The options from parsed values; contradictions are UsageErrors. */
export function startOptionsFrom(values: CliValues<typeof START_CLI.options>, cwd: string): StartOptions {
  const demo = values['no-demo'] !== true;
  if (!demo && values.scenario !== undefined) throw new UsageError('--no-demo and --scenario exclude each other: a scenario is a demo');
  if (!demo && values['exit-after-demo']) throw new UsageError('--no-demo and --exit-after-demo exclude each other');
  for (const key of ['scenario', 'config'] as const) {
    if (values[key] !== undefined && values[key].trim() === '') throw new UsageError(`--${key} needs a file path`);
  }
  return {
    demo,
    exitAfterDemo: values['exit-after-demo'] === true,
    scenarioFile: values.scenario === undefined ? undefined : resolve(cwd, values.scenario),
    configFile: values.config === undefined ? undefined : resolve(cwd, values.config),
  };
}
