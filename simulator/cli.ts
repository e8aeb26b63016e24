/**
 * `npm run simulate -- --nodes <file> --pods <file> [--config <file>] [--json]`:
 * what-if placement of pending pods on a cluster, with the same scheduling
 * library and profile the extender runs (plus the scheduler's CPU/memory fit).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createSimulatorProfile } from '../lambdas/scheduling/profiles';
import { InputError, parseKubeList } from './kube-list-file';
import { formatSimulation } from './placement-table';
import { simulate } from './simulate';
import { parseSimulatorConfig } from './simulator-config';
import { errorMessage } from '../lambdas/common/error-message';

const USAGE = 'usage: npm run simulate -- --nodes <nodes.json|yaml> --pods <pods.json|yaml> [--config <profile.yaml>] [--json]';

function readInput(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${errorMessage(error)}`);
  }
}

function main(argv: readonly string[]): number {
  let values: { nodes?: string; pods?: string; config?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { nodes: { type: 'string' }, pods: { type: 'string' }, config: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`error: ${errorMessage(error)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help || values.nodes === undefined || values.pods === undefined) {
    process.stderr.write(`${values.help ? '' : 'error: --nodes and --pods are required\n'}${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  try {
    const nodes = parseKubeList(readInput(values.nodes), values.nodes, 'Node');
    const pods = parseKubeList(readInput(values.pods), values.pods, 'Pod');
    const options = values.config === undefined ? {} : parseSimulatorConfig(readInput(values.config), values.config);
    const result = simulate(nodes, pods, createSimulatorProfile(options));
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSimulation(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InputError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
