// Command-line options of `npm start`.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../../lambdas/common/error-message';

export interface StartOptions {
  demo: boolean;
  exitAfterDemo: boolean;
  /** Absolute path, or undefined for the built-in demo. */
  scenarioFile: string | undefined;
  /** Absolute path of the CDK app's config file, or undefined for its defaults. */
  configFile: string | undefined;
  help: boolean;
}

export const USAGE = `Usage: npm start -- [options]

Runs the whole pipeline locally (kube-apiserver, etcd, kube-controller-manager,
kube-schedulers, moto, and the extender, labeler and reconciler Lambdas) and a
demo on it, then keeps running until Ctrl-C.

Options:
  --no-demo            start the pipeline only (no nodes, no workload)
  --scenario <file>    run this scenario (JSON or YAML) instead of the built-in demo
  --config <file>      the CDK app's config file (JSON or YAML), e.g. cdk/app-config/example-existing-cluster.yaml
  --exit-after-demo    run the demo, print a summary and exit: 0 if every expected outcome held, 1 otherwise
  -h, --help           show this help`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses argv (without node and the script); relative paths resolve against `cwd` (npm's INIT_CWD). */
export function parseStartOptions(argv: string[], cwd: string): StartOptions {
  let values: { 'no-demo'?: boolean; 'exit-after-demo'?: boolean; scenario?: string; config?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'no-demo': { type: 'boolean' },
        'exit-after-demo': { type: 'boolean' },
        scenario: { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
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
    help: values.help === true,
  };
}
