import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../cli/command-line';
import { measurePolicies, readOptions, TOPOLOGY_CLI } from '../../bench/topology/topology-cli';
import { formatMarkdown } from '../../bench/topology/topology-report';
import { COST_CLI, costMarkdown, readCostOptions } from '../../cdk/tools/cost-cli';

// Tables that go stale are written by a command, between
//   <!-- generated: <the command> -->  and  <!-- /generated -->
// in README.md and docs/*.md. This test runs each command's renderer with the
// command's own options and fails when the page says something else: rerun
// the command and paste its output.
const root = join(import.meta.dirname, '..', '..');
const PAGES = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const BLOCK = /<!-- generated: (.+?) -->\n([\s\S]*?)\n<!-- \/generated -->/g;

interface GeneratedBlock {
  readonly page: string;
  readonly command: string;
  readonly text: string;
}

function generatedBlocks(): GeneratedBlock[] {
  return PAGES.flatMap((page) => [...readFileSync(join(root, page), 'utf8').matchAll(BLOCK)].map((match) => ({ page, command: match[1] ?? '', text: match[2] ?? '' })));
}

/** The arguments after `npm run <script> --`. */
function argsOf(command: string, script: string): string[] | undefined {
  const prefix = `npm run ${script} -- `;
  return command.startsWith(prefix) ? command.slice(prefix.length).split(/\s+/).filter((arg) => arg !== '') : undefined;
}

const rendered = new Map<string, string | undefined>();

/** What each command prints, computed in process once per command; undefined for a command this test does not know. */
function render(command: string): string | undefined {
  if (!rendered.has(command)) rendered.set(command, renderOnce(command));
  return rendered.get(command);
}

function renderOnce(command: string): string | undefined {
  const topology = argsOf(command, 'bench:topology');
  if (topology !== undefined) {
    const options = readOptions(parseCommandLine(TOPOLOGY_CLI, topology));
    if (!options.markdown) return undefined;
    return formatMarkdown(measurePolicies(options), options);
  }
  const cost = argsOf(command, 'cost');
  if (cost !== undefined) {
    const options = readCostOptions(parseCommandLine(COST_CLI, cost));
    return options.markdown ? costMarkdown(options) : undefined;
  }
  return undefined;
}

describe('generated tables in README.md and docs/', () => {
  const blocks = generatedBlocks();

  it('are there, each naming a command this test can run', () => {
    expect(blocks.map((b) => b.page)).toEqual(expect.arrayContaining(['README.md', 'docs/simulator.md', 'docs/deploy.md']));
    expect(blocks.filter((b) => !/^npm run (bench:topology|cost) -- .*--markdown/.test(b.command)).map((b) => `${b.page}: ${b.command}`)).toEqual([]);
  });

  it.each(blocks.map((b) => [`${b.page}: ${b.command}`, b] as const))('%s is what the command prints', (_name, block) => {
    expect(block.text).toBe(render(block.command));
    // A topology run is about 8 s of CPU; a loaded 2-core machine stretches it several times.
  }, 600_000);
});
