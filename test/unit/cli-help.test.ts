// Every command-line tool behind an npm script answers --help and -h on
// stdout, exit 0, with each option its parser accepts explained and an
// example. The options come from the table each tool parses with (its spec),
// so the help and the parser cannot drift apart; a new tsx script without a
// spec here fails the first test.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCAL_SERVER_CLI } from '../../local/extender-host/extender-server';
import { helpText, type CliOptions, type CliSpec } from '../../cli/command-line';
import { BENCH_CLI } from '../../bench/perf/cli';
import { TRACE_CLI } from '../../bench/trace/trace-cli';
import { TOPOLOGY_CLI } from '../../bench/topology/topology-cli';
import { START_CLI } from '../../local/start/options';
import { SIMULATE_CLI } from '../../simulator/cli';
import { MONITORING_CLI } from '../../cdk/tools/monitoring-cli';
import { CONFIG_DOCS_CLI } from '../../cdk/tools/config-docs-cli';
import { CHARTS_CLI } from '../../charts/charts-cli';
import { COST_CLI } from '../../cdk/tools/cost-cli';
import { PREFLIGHT_CLI } from '../../cdk/tools/preflight-cli';
import { STRESS_CLI } from '../stress/stress-cli';
import { typescriptProgramArgs } from '../../local/common/typescript-program';

const root = join(import.meta.dirname, '..', '..');
// Each run starts tsx and imports the tool's modules; a loaded machine makes that slow.
const SPAWN_TIMEOUT_MS = 120_000;

const SPECS: Record<string, CliSpec<CliOptions>> = {
  start: START_CLI,
  extender: LOCAL_SERVER_CLI,
  simulate: SIMULATE_CLI,
  bench: BENCH_CLI,
  'bench:trace': TRACE_CLI,
  'bench:topology': TOPOLOGY_CLI,
  monitoring: MONITORING_CLI,
  'config:docs': CONFIG_DOCS_CLI,
  charts: CHARTS_CLI,
  cost: COST_CLI,
  preflight: PREFLIGHT_CLI,
  'test:stress': STRESS_CLI,
};

/** npm scripts that run a TypeScript entry point: name → file. */
function tsxScripts(): Record<string, string> {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return Object.fromEntries(
    Object.entries(scripts).flatMap(([name, command]) => {
      const match = /^tsx (\S+\.ts)$/.exec(command);
      return match?.[1] ? [[name, match[1]]] : [];
    }),
  );
}

/** The script's entry in one node process with tsx's loader: what `tsx <entry>` runs, without its relaying parent. */
function run(entry: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, typescriptProgramArgs(join(root, entry), args), { cwd: root, encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

describe('--help of every npm script', () => {
  const scripts = tsxScripts();

  it('every npm script that runs a tsx entry point has its spec here', () => {
    expect(Object.keys(scripts).sort()).toEqual(Object.keys(SPECS).sort());
  });

  for (const [name, spec] of Object.entries(SPECS)) {
    it(`${name === 'start' ? 'npm start' : `npm run ${name}`} -- --help (and -h) explains every option the parser accepts, with an example`, async () => {
      const entry = scripts[name] ?? '';
      const [long, short, wrong] = await Promise.all([run(entry, ['--help']), run(entry, ['-h']), run(entry, ['--no-such-option'])]);
      for (const result of [long, short]) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toBe(`${helpText(spec)}\n`);
      }
      const help = long.stdout;
      expect(help).toMatch(new RegExp(`^Usage: npm (start|run ${name.replace(':', '\\:')})\\b`));
      for (const [option, definition] of Object.entries(spec.options)) {
        expect(definition.description.trim(), `--${option} has a description`).not.toBe('');
        const label = `--${option}${definition.type === 'string' ? ' <' : ''}`;
        expect(help, `--${option} is in the help`).toContain(label);
        expect(help).toContain(definition.description.split('\n')[0]);
        if (definition.short) expect(help).toContain(`-${definition.short}, --${option}`);
      }
      expect(spec.options).toHaveProperty('help');
      const examples = help.slice(help.indexOf('\nExamples:\n'));
      expect(examples).toMatch(/\n {2}(npm|\S+=\S+ npm|git|kubectl) /);
      expect(wrong.code).toBe(2);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr).toContain("error: Unknown option '--no-such-option'");
      expect(wrong.stderr).toContain('(--help explains every option)');
    }, SPAWN_TIMEOUT_MS * 2);
  }
});
