/**
 * `npm run simulate -- --nodes <file> --pods <file> [--config <file>] [--json] [--explain] [--exact] [--report <file>]`:
 * what-if placement of the gpu-scheduler's pending pods on a cluster, as the
 * deployed gpu-scheduler (kube-scheduler's profile plus the extender) would place them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defineCli, isEntryPoint, readCommandLine, UsageError } from '../cli/command-line';
import { errorMessage } from '../lambdas/common/error-message';
import { startControlPlane } from '../local/control-plane/control-plane';
import { ensureKubeBinaries } from '../local/builds/kube-binaries';
import { simulateExact } from './exact';
import { InputError, parseKubeList } from './kube-list-file';
import { formatSimulation } from './placement-table';
import { simulate } from './simulate';
import { parseSimulatorConfig } from './simulator-config';
import { renderReportHtml } from './report/report-html';
import { buildWhatIfReport } from './report/report-model';

export const SIMULATE_CLI = defineCli({
  usage: 'npm run simulate -- --nodes <file> --pods <file> [--config <file>] [--json] [--explain] [--exact] [--report <file>]',
  summary: [
    'What-if placement: where the pending pods with schedulerName gpu-scheduler would land on',
    'these nodes, decided as the deployed gpu-scheduler decides: kube-scheduler\'s filters and',
    'scores of its profile plus the extender. Pods of other schedulers are skipped; bound pods',
    'of any scheduler count as load. Fast path by default (in process; lists what it does not',
    'model); --exact runs the real kube-apiserver, kube-scheduler and extender locally.',
    'Exit 0 done (even with unschedulable pods), 1 bad input or a failed --exact run, 2 bad usage.',
  ].join('\n'),
  options: {
    nodes: { type: 'string', value: 'file', description: 'nodes, as `kubectl get nodes -o json` (or yaml) prints them (required)' },
    pods: { type: 'string', value: 'file', description: 'pods, as `kubectl get pods -A -o json` (or yaml) prints them (required)' },
    config: { type: 'string', value: 'file', description: 'the extender\'s profile options (JSON or YAML): weights, gpuScore; see docs/simulator.md' },
    json: { type: 'boolean', description: 'print the result as JSON instead of tables' },
    explain: { type: 'boolean', description: 'for each placement, the points per plugin on the chosen node and the runner-up (with --exact: the extender\'s ranking)' },
    exact: { type: 'boolean', description: 'run the real kube-apiserver, kube-scheduler and extender (builds Kubernetes once; about a minute per 500 nodes)' },
    report: {
      type: 'string',
      value: 'file',
      description: 'also write the what-if report, one self-contained HTML file: the GPU slots of every node before and after, grouped by GPU model, zone and pool; each pending pod with its node or why not; the outcome (its path goes to stderr)',
    },
  },
  examples: [
    'kubectl get nodes -o json > nodes.json; kubectl get pods -A -o json > pods.json',
    'npm run simulate -- --nodes nodes.json --pods pods.json',
    'npm run simulate -- --nodes nodes.json --pods pods.json --explain   # why each pod went where it went',
    'npm run simulate -- --nodes nodes.json --pods pods.json --exact     # the real scheduler, same output',
    'npm run simulate -- --nodes nodes.json --pods pods.json --report report.html   # the same as a page to look at',
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
  exact: boolean;
  report: string | undefined;
}

async function main(argv: readonly string[]): Promise<number> {
  const options = readCommandLine(SIMULATE_CLI, argv, (values): SimulateCliOptions => {
    if (values.nodes === undefined || values.pods === undefined) throw new UsageError('--nodes and --pods are required');
    if (values.report !== undefined && values.report.trim() === '') throw new UsageError('--report needs a file path');
    return {
      nodes: values.nodes,
      pods: values.pods,
      config: values.config,
      json: values.json === true,
      explain: values.explain === true,
      exact: values.exact === true,
      report: values.report,
    };
  });
  let result;
  let nodes: unknown[];
  let pods: unknown[];
  try {
    nodes = parseKubeList(readInput(options.nodes), options.nodes, 'Node');
    pods = parseKubeList(readInput(options.pods), options.pods, 'Pod');
    const profileOptions = options.config === undefined ? {} : parseSimulatorConfig(readInput(options.config), options.config);
    result = options.exact ? await runExact(nodes, pods, profileOptions, options.explain) : simulate(nodes, pods, profileOptions, { explain: options.explain });
  } catch (error) {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    if (error instanceof InputError) return 1;
    if (options.exact) return 1;
    throw error;
  }
  process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSimulation(result)}\n`);
  if (options.report !== undefined) {
    const file = path.resolve(options.report);
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, renderReportHtml(buildWhatIfReport(nodes, pods, result)));
    } catch (error) {
      process.stderr.write(`error: cannot write the report ${file}: ${errorMessage(error)}\n`);
      return 1;
    }
    process.stderr.write(`report: ${file}\n`);
  }
  return 0;
}

/** A throwaway control plane (no default scheduler: only the gpu-scheduler places pods), stopped whatever happens. */
async function runExact(nodes: readonly unknown[], pods: readonly unknown[], profileOptions: Parameters<typeof simulate>[2], explain: boolean) {
  const log = (message: string): void => {
    process.stderr.write(`${message}\n`);
  };
  const binaries = await ensureKubeBinaries(log);
  const controlPlane = await startControlPlane({ binaries, defaultScheduler: false, log });
  try {
    return await simulateExact(nodes, pods, profileOptions ?? {}, controlPlane.info, { explain, log });
  } finally {
    await controlPlane.stop();
  }
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`error: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
