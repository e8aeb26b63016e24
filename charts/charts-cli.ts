/**
 * `npm run charts`: the docs' charts and the README's two pictures, from the
 * figures the benchmarks recorded in docs/data/ (so no trace data and no
 * benchmark run is needed) and from a what-if report of a generated cluster
 * (its node grid photographed in headless chromium).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDump } from '../bench/simulate/generated-dump';
import { defineCli, isEntryPoint, readCommandLine } from '../cli/command-line';
import { errorMessage } from '../lambdas/common/error-message';
import { renderReportHtml } from '../simulator/report/report-html';
import { buildWhatIfReport } from '../simulator/report/report-model';
import { simulate } from '../simulator/simulate';
import { CHROMIUM_PATH, withPageOf } from './headless-chromium';
import { parseSystemFigures } from './system-figures';
import { renderSystemChart } from './system-chart';
import { parseTopologyResults } from './topology-results';
import { renderTopologyChart } from './topology-chart';
import { parseTraceResults } from './trace-results';
import { renderTraceChart } from './trace-chart';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const docs = path.join(repoRoot, 'docs');

export const CHARTS_CLI = defineCli({
  usage: 'npm run charts -- [options]',
  summary: [
    "Regenerates the docs' charts and the README's pictures: the trace charts, the topology chart",
    'and the system chart (SVG, from the figures in docs/data/ that bench:trace, bench:topology and',
    'bench record with --record), and a what-if report of a generated cluster (HTML) with a PNG of',
    "its node grid taken in headless chromium (Debian's package; CHROMIUM_PATH to use another).",
  ].join('\n'),
  options: {
    'no-picture': { type: 'boolean', description: 'skip the PNG of the report (no browser needed)' },
  },
  examples: ['npm run charts', 'npm run charts -- --no-picture'],
});

/** The trace charts: ours as deployed against FGD, BestFit and kube-scheduler's default, the paper's values marked. */
export const TRACE_CHARTS = [
  { data: 'trace-openb-default.json', svg: 'openb-default.svg' },
  { data: 'trace-openb-gpuspec33.json', svg: 'openb-gpuspec33.svg' },
] as const;
export const TRACE_CHART_POLICIES = ['extender', 'fgd', 'bestfit', 'spread'] as const;
export const TRACE_CHART_PAPER = ['FGD', 'BestFit'] as const;

/** The example cluster of the README's report: generated, so nothing is committed but the pictures. */
export const EXAMPLE_CLUSTER = { nodes: 24, pods: 160, pendingShare: 0.05, seed: 3 } as const;

const read = (name: string): string => readFileSync(path.join(docs, 'data', name), 'utf8');

function write(name: string, content: string | Buffer, log: (line: string) => void): void {
  const file = path.join(docs, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  log(`wrote ${path.relative(repoRoot, file)}`);
}

/** The example's report page. */
export function exampleReportHtml(): string {
  const dump = generateDump(EXAMPLE_CLUSTER);
  return renderReportHtml(buildWhatIfReport(dump.nodes, dump.pods, simulate(dump.nodes, dump.pods)));
}

async function main(argv: readonly string[]): Promise<void> {
  const options = readCommandLine(CHARTS_CLI, argv, (values) => ({ picture: values['no-picture'] !== true }));
  const log = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  for (const chart of TRACE_CHARTS) {
    const results = parseTraceResults(read(chart.data), chart.data);
    write(chart.svg, await renderTraceChart(results, { policies: TRACE_CHART_POLICIES, paper: TRACE_CHART_PAPER }), log);
  }
  write('topology-benchmark.svg', await renderTopologyChart(parseTopologyResults(read('topology.json'), 'topology.json')), log);
  write('system-benchmark.svg', await renderSystemChart(parseSystemFigures(read('system-bench.json'), 'system-bench.json')), log);
  const html = exampleReportHtml();
  write('what-if-report.html', html, log);
  if (!options.picture) return;
  const png = await withPageOf(html, async ({ page, errors }) => {
    const shot = await page.locator('#nodes').screenshot();
    if (errors.length > 0) throw new Error(`the report had errors in chromium: ${errors.join('; ')}`);
    return shot;
  }).catch((error: unknown) => {
    throw new Error(`${errorMessage(error)}\n(the picture needs chromium at ${CHROMIUM_PATH}: apt-get install chromium, or CHROMIUM_PATH; --no-picture skips it)`);
  });
  write('what-if-report.png', png, log);
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  });
}
