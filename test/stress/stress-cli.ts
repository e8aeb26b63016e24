// `npm run test:stress`: the e2e project (or some of its files) while busy
// loops at normal priority compete for the cores, as on a loaded CI machine,
// for one or more rounds; prints each round's outcome and the failed tests.
// The loops run in a process group of their own, killed on every way out.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCli, isEntryPoint, readCommandLine, UsageError, type CliValues } from '../../cli/command-line';
import { summarizeRound, type RoundSummary, type VitestJsonReport } from './round-summary';

export const STRESS_CLI = defineCli({
  usage: 'npm run test:stress -- [options]',
  summary: [
    'Runs the e2e project (vitest --project e2e) while busy loops spin at normal',
    'priority, once per round, and prints per round: files, tests passed and failed,',
    'wall time, and the name of every failed test. Exits 1 if any round failed.',
  ].join('\n'),
  options: {
    rounds: { type: 'string', value: 'N', default: '1', description: 'how many times to run the tests (each with the loops running)' },
    loops: { type: 'string', value: 'N', default: '2', description: 'busy loops to run alongside (one per core of a 2-core CI machine)' },
    files: { type: 'string', value: 'list', description: 'comma-separated e2e test files to run instead of the whole e2e project' },
  },
  examples: [
    'npm run test:stress                                   # whole e2e project, one round',
    'npm run test:stress -- --rounds 3                     # what CI must survive',
    'npm run test:stress -- --files test/e2e/start.test.ts,test/e2e/extender-mtls.test.ts',
  ],
});

export interface StressPlan {
  rounds: number;
  loops: number;
  files: string[];
}

function count(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`--${name} needs a whole number ≥ ${min}, not "${text}"`);
  return value;
}

export function stressPlan(values: CliValues<typeof STRESS_CLI.options>): StressPlan {
  const files = (values.files ?? '').split(',').map((file) => file.trim()).filter((file) => file !== '');
  if (values.files !== undefined && files.length === 0) throw new UsageError('--files needs at least one test file');
  return { rounds: count('rounds', values.rounds, 1), loops: count('loops', values.loops, 0), files };
}

/** The busy loops: one detached process group, so one kill ends them all. */
function startBusyLoops(loops: number): ChildProcess | undefined {
  if (loops === 0) return undefined;
  const script = `for (let i = 1; i < ${loops}; i++) require('node:child_process').spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }); for (;;) {}`;
  const group = spawn(process.execPath, ['-e', script], { detached: true, stdio: 'ignore' });
  group.unref();
  return group;
}

function killGroup(leader: ChildProcess | undefined): void {
  if (leader?.pid === undefined) return;
  try {
    process.kill(-leader.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function runVitest(files: readonly string[], reportFile: string): Promise<number> {
  const args = ['vitest', 'run', '--project', 'e2e', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...files];
  const child = spawn('npx', args, { stdio: 'inherit' });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function readReport(reportFile: string): VitestJsonReport | undefined {
  try {
    return JSON.parse(readFileSync(reportFile, 'utf8')) as VitestJsonReport;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const plan = readCommandLine(STRESS_CLI, process.argv.slice(2), stressPlan);
  const loops = startBusyLoops(plan.loops);
  const stop = (): void => killGroup(loops);
  process.once('exit', stop);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const workDir = mkdtempSync(join(tmpdir(), 'test-stress-'));
  const summaries: RoundSummary[] = [];
  try {
    for (let round = 1; round <= plan.rounds; round++) {
      console.log(`\n=== stress round ${round}/${plan.rounds}: ${plan.loops} busy loop(s), ${plan.files.length === 0 ? 'whole e2e project' : plan.files.join(' ')}`);
      const reportFile = join(workDir, `round-${round}.json`);
      const started = Date.now();
      const exitCode = await runVitest(plan.files, reportFile);
      summaries.push(summarizeRound(round, exitCode, (Date.now() - started) / 1000, readReport(reportFile)));
    }
  } finally {
    stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(`\n=== stress summary (${plan.loops} busy loop(s))`);
  for (const summary of summaries) console.log(summary.lines.join('\n'));
  process.exitCode = summaries.every((summary) => summary.passed) ? 0 : 1;
}

if (isEntryPoint(import.meta.url)) await main();
