// Rewrites the tables of docs/configuration.md from the config schema
// (cdk/app-config/config-docs.ts), or with --check says whether they are current.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineCli, isEntryPoint, readCommandLine } from '../../cli/command-line';
import { renderConfigDocs } from '../app-config/config-docs';

export const CONFIG_DOCS_FILE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

export const CONFIG_DOCS_CLI = defineCli({
  usage: 'npm run config:docs [-- --check]',
  summary: [
    "Renders the tables of docs/configuration.md from the CDK app's config schema (each setting's",
    'default, what is allowed and what it means), between the page\'s `<!-- config-table: … -->` markers.',
    'Exit 0 written (or current with --check), 1 out of date with --check.',
  ].join('\n'),
  options: {
    check: { type: 'boolean', description: 'write nothing; exit 1 when the page differs from the schema' },
  },
  examples: ['npm run config:docs', 'npm run config:docs -- --check'],
});

export function main(argv: readonly string[]): number {
  const options = readCommandLine(CONFIG_DOCS_CLI, argv, (values) => ({ check: values.check === true }));
  const page = readFileSync(CONFIG_DOCS_FILE, 'utf8');
  const rendered = renderConfigDocs(page);
  if (options.check) {
    if (rendered === page) return 0;
    process.stderr.write('docs/configuration.md differs from the config schema: run npm run config:docs\n');
    return 1;
  }
  if (rendered !== page) writeFileSync(CONFIG_DOCS_FILE, rendered);
  process.stdout.write(rendered === page ? 'docs/configuration.md is current\n' : 'docs/configuration.md: tables rewritten from the config schema\n');
  return 0;
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
