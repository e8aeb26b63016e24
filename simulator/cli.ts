/**
 * `npm run simulate -- --nodes <file> --pods <file> [--config <file>] [--json] [--explain]`:
 * what-if placement of pending pods on a cluster, with the same scheduling
 * library and profile the extender runs (plus the scheduler's CPU/memory fit).
 */
import { readFileSync } from 'node:fs';
import { defineCli, isEntryPoint, readCommandLine, UsageError } from '../lambdas/common/command-line';
import { createSimulatorProfile } from '../lambdas/scheduling/profiles';
import { InputError, parseKubeList } from './kube-list-file';
import { formatSimulation } from './placement-table';
import { simulate } from './simulate';
import { parseSimulatorConfig } from './simulator-config';
import { errorMessage } from '../lambdas/common/error-message';

export const SIMULATE_CLI = defineCli({
  usage: 'npm run simulate -- --nodes <file> --pods <file> [--config <file>] [--json] [--explain]',
  summary: [
    'What-if placement: where the pending pods would land on these nodes, with the',
    'profile the extender runs (plus kube-scheduler\'s CPU/memory/pod-count fit).',
    'Bound pods count as load; the others are placed in file order. Prints a placement',
    'table (pod, node, score, GPU devices), the reasons for each unschedulable pod and',
    'a node-usage table. Exit 0 done (even with unschedulable pods), 1 bad input, 2 bad usage.',
  ].join('\n'),
  options: {
    nodes: { type: 'string', value: 'file', description: 'nodes, as `kubectl get nodes -o json` (or yaml) prints them (required)' },
    pods: { type: 'string', value: 'file', description: 'pods, as `kubectl get pods -A -o json` (or yaml) prints them (required)' },
    config: { type: 'string', value: 'file', description: 'profile options (JSON or YAML): weights, gpuScore; see docs/simulator.md' },
    json: { type: 'boolean', description: 'print {placed, unschedulable, alreadyBound, nodes} as JSON instead of tables' },
    explain: { type: 'boolean', description: 'for each placement, every plugin\'s score on the chosen node and on the runner-up, and the margin (or: tie)' },
  },
  examples: [
    'kubectl get nodes -o json > nodes.json; kubectl get pods -A -o json > pods.json',
    'npm run simulate -- --nodes nodes.json --pods pods.json',
    'npm run simulate -- --nodes nodes.json --pods pods.json --config profile.yaml --json',
    'npm run simulate -- --nodes nodes.json --pods pods.json --explain   # why each pod went where it went',
  ],
});

function readInput(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${file}: ${errorMessage(error)}`);
  }
}

interface SimulateCliOptions {
  nodes: string;
  pods: string;
  config: string | undefined;
  json: boolean;
  explain: boolean;
}

function main(argv: readonly string[]): number {
  const options = readCommandLine(SIMULATE_CLI, argv, (values): SimulateCliOptions => {
    if (values.nodes === undefined || values.pods === undefined) throw new UsageError('--nodes and --pods are required');
    return { nodes: values.nodes, pods: values.pods, config: values.config, json: values.json === true, explain: values.explain === true };
  });
  try {
    const nodes = parseKubeList(readInput(options.nodes), options.nodes, 'Node');
    const pods = parseKubeList(readInput(options.pods), options.pods, 'Pod');
    const profileOptions = options.config === undefined ? {} : parseSimulatorConfig(readInput(options.config), options.config);
    const result = simulate(nodes, pods, createSimulatorProfile(profileOptions), { explain: options.explain });
    process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSimulation(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InputError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
